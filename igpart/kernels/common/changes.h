// Change records of the dynamic hypergraph, shared by both backends. A batch is columnar:
// op (int8, one of the codes below) and three int64 argument columns a, b, c. Id arguments
// may be "references": -(r + 1) names the vertex or net created by record r of the same batch.
//
//   code  op                  a         b               c
//   0     insert_vertex       weight    block (-1: the lightest block)   0
//   1     delete_vertex       vertex    0               0   (the vertex must have no pins)
//   2     insert_net          weight    0               0
//   3     delete_net          net       0               0   (the net must have no pins)
//   4     insert_pin          vertex    net             0   (vertex joins net)
//   5     delete_pin          vertex    net             0   (vertex leaves net)
//   6     set_vertex_weight   vertex    weight          0
//   7     set_net_weight      net       weight          0
#pragma once
#include "igpart_common.h"

namespace igp {

enum ChangeOp : int {
    OP_INSERT_VERTEX = 0,
    OP_DELETE_VERTEX = 1,
    OP_INSERT_NET = 2,
    OP_DELETE_NET = 3,
    OP_INSERT_PIN = 4,
    OP_DELETE_PIN = 5,
    OP_SET_VERTEX_WEIGHT = 6,
    OP_SET_NET_WEIGHT = 7,
    OP_COUNT = 8
};

// Whether argument column `col` (0 = a, 1 = b, 2 = c) of an op holds a vertex id, a net id, or
// neither (0 = none, 1 = vertex, 2 = net).
IGP_HD int change_arg_kind(int op, int col) {
    switch (op) {
        case OP_DELETE_VERTEX:
        case OP_SET_VERTEX_WEIGHT: return col == 0 ? 1 : 0;
        case OP_DELETE_NET:
        case OP_SET_NET_WEIGHT: return col == 0 ? 2 : 0;
        case OP_INSERT_PIN:
        case OP_DELETE_PIN: return col == 0 ? 1 : (col == 1 ? 2 : 0);
        default: return 0;
    }
}

// The reference to the entity created by record r of a batch, and back.
IGP_HD igp_i64 change_ref(igp_i64 r) { return -(r + 1); }
IGP_HD igp_i64 change_ref_record(igp_i64 ref) { return -ref - 1; }

}  // namespace igp
