# Replays a TAU 2015 .ops file through igpart from Tcl: the change commands of the file are Tcl
# commands, and each read_spef / report_* line refines the partition.
#
#   igpart tcl examples/replay_ops.tcl ../shared/benchmarks/tau2015/tv80 tv80 4
set dir [lindex $argv 0]
set design [lindex $argv 1]
set k [expr {$argc > 2 ? [lindex $argv 2] : 4}]

igpart::read_verilog $dir/$design.v -lib $dir/../cells_early.lib
puts "initial: [dict get [igpart::partition -k $k -epsilon 0.03] cut] cut"
source $dir/$design.ops
set r [igpart::report]
puts "after [dict get $r batches] batches: cut [dict get $r cut], balanced [dict get $r balanced],\
      full re-partitions [dict get $r full_partitions]"
if {[catch {igpart::block_of no_such_cell} msg]} { puts "errors are Tcl errors: $msg" }
