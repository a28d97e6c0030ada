# Replays a TAU 2015 .ops file through igpart from Tcl: the change commands of the file are Tcl
# commands, and each read_spef / report_* line refines the partition. The design is read with
# OpenTimer's shell commands; the final blocks go to BLOCKS ('name block' lines) when given.
#
#   igpart tcl examples/replay_ops.tcl ../shared/benchmarks/tau2015/tv80 tv80 4 [BLOCKS]
set dir [lindex $argv 0]
set design [lindex $argv 1]
set k [expr {$argc > 2 ? [lindex $argv 2] : 4}]

read_celllib -min $dir/../cells_early.lib
read_verilog $dir/$design.v
puts "initial: [dict get [igpart::partition -k $k -epsilon 0.03] cut] cut"
source $dir/$design.ops
set r [igpart::report]
puts "after [dict get $r batches] batches: cut [dict get $r cut], balanced [dict get $r balanced],\
      full re-partitions [dict get $r full_partitions]"
if {[catch {igpart::block_of no_such_cell} msg]} { puts "errors are Tcl errors: $msg" }
puts "[expr {[llength [igpart::blocks]] / 2}] cells and ports placed"
if {$argc > 3} { puts "wrote [dict get [igpart::write_partition [lindex $argv 3]] lines] lines" }
