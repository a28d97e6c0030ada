// Bindings of community detection (Louvain on the clique expansion or the bipartite graph),
// used to restrict the default hypergraph coarsening to communities.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "bindings.h"
#include "community.h"
#include "numpy_util.h"
#include "partition.h"

namespace py = pybind11;
using namespace igp;

namespace {

// Louvain's arguments as the bindings take them, checked.
struct LouvainArgs {
    int64_t max_net_size, max_levels, max_passes;
    double min_move_fraction;
    int64_t seed;
    double resolution;
    int64_t max_weight, sub_rounds;
    bool prune;
    CommunityGraph graph;
    BipartiteWeight model;
    double min_pass_gain;
    int64_t sub_round_min_arcs, sub_round_rows_per_thread, barrier_spin_us;
    bool async_moves;
};

LouvainArgs louvain_args(int64_t max_net_size, int64_t max_levels, int64_t max_passes,
                         double min_move_fraction, int64_t seed, double resolution,
                         int64_t max_weight, int64_t sub_rounds, bool prune,
                         const std::string &graph, const std::string &edge_weight,
                         double min_pass_gain, int64_t sub_round_min_arcs,
                         int64_t sub_round_rows_per_thread, int64_t barrier_spin_us,
                         bool async_moves) {
    if (max_levels < 0 || max_passes < 0)
        throw std::invalid_argument("louvain_communities: max_levels and max_passes must be >= 0");
    if (!(resolution > 0.0) || !std::isfinite(resolution))
        throw std::invalid_argument(
            "louvain_communities: resolution must be a positive finite number");
    if (max_weight < 0)
        throw std::invalid_argument("louvain_communities: max_weight must be >= 0");
    if (sub_rounds < 0 || sub_round_min_arcs < 0 || sub_round_rows_per_thread < 0 ||
        barrier_spin_us < 0)
        throw std::invalid_argument(
            "louvain_communities: sub_rounds, sub_round_min_arcs, "
            "sub_round_rows_per_thread and barrier_spin_us must be >= 0");
    if (barrier_spin_us > 1000000)
        throw std::invalid_argument(
            "louvain_communities: barrier_spin_us must be at most 1000000 (one second)");
    if (!(min_pass_gain >= 0.0) || !std::isfinite(min_pass_gain))
        throw std::invalid_argument(
            "louvain_communities: min_pass_gain must be a finite number >= 0");
    CommunityGraph g;
    if (graph == "clique")
        g = CommunityGraph::clique;
    else if (graph == "bipartite")
        g = CommunityGraph::bipartite;
    else
        throw std::invalid_argument("louvain_communities: graph must be 'clique' or "
                                    "'bipartite', got '" + graph + "'");
    BipartiteWeight model;
    if (edge_weight == "hybrid")
        model = BipartiteWeight::hybrid;
    else if (edge_weight == "uniform")
        model = BipartiteWeight::uniform;
    else if (edge_weight == "non_uniform")
        model = BipartiteWeight::non_uniform;
    else if (edge_weight == "degree")
        model = BipartiteWeight::degree;
    else
        throw std::invalid_argument(
            "louvain_communities: edge_weight must be 'hybrid', 'uniform', "
            "'non_uniform' or 'degree', got '" + edge_weight + "'");
    return {max_net_size, max_levels, max_passes, min_move_fraction, seed, resolution,
            max_weight, sub_rounds, prune, g, model, min_pass_gain, sub_round_min_arcs,
            sub_round_rows_per_thread, barrier_spin_us, async_moves};
}

// louvain_communities (Profile false: the communities) or louvain_profile (Profile true: the
// communities and what each level did).
template <bool Profile>
py::object louvain_binding(Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt,
                           Arr<int64_t> vptr, Arr<int32_t> vind, Arr<int64_t> vwgt,
                           int64_t max_net_size, int64_t max_levels, int64_t max_passes,
                           double min_move_fraction, int64_t seed, double resolution,
                           int64_t max_weight, int64_t sub_rounds, bool prune,
                           const std::string &graph, const std::string &edge_weight,
                           double min_pass_gain, int64_t sub_round_min_arcs,
                           int64_t sub_round_rows_per_thread, int64_t barrier_spin_us,
                           bool async_moves) {
    const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt,
                             Profile ? "louvain_profile" : "louvain_communities");
    const LouvainArgs a = louvain_args(max_net_size, max_levels, max_passes, min_move_fraction,
                                       seed, resolution, max_weight, sub_rounds, prune, graph,
                                       edge_weight, min_pass_gain, sub_round_min_arcs,
                                       sub_round_rows_per_thread, barrier_spin_us,
                                       async_moves);
    std::vector<LouvainLevel> levels;
    std::vector<int32_t> comm;
    {
        py::gil_scoped_release release;
        const StageThreads cap(h.eptr[h.m]);  // threads by the input's pins
        comm = louvain_communities(h, a.max_net_size, a.max_levels, a.max_passes,
                                   a.min_move_fraction, a.seed, a.resolution, a.max_weight,
                                   a.sub_rounds, a.prune, a.graph, a.model, a.min_pass_gain,
                                   a.sub_round_min_arcs, Profile ? &levels : nullptr,
                                   a.sub_round_rows_per_thread, a.barrier_spin_us,
                                   a.async_moves);
    }
    if (!Profile) return to_numpy(std::move(comm));
    py::list out;
    for (const LouvainLevel &l : levels) {
        py::list passes;
        for (const LouvainPass &p : l.passes)
            passes.append(py::dict(py::arg("rated") = p.rated, py::arg("moved") = p.moved,
                                   py::arg("seconds") = p.seconds,
                                   py::arg("modularity") = p.modularity,
                                   py::arg("estimated_gain") = p.estimated_gain));
        out.append(py::dict(py::arg("nodes") = l.nodes, py::arg("arcs") = l.arcs,
                            py::arg("communities") = l.communities,
                            py::arg("sub_rounds") = l.sub_rounds,
                            py::arg("async_moves") = l.async_moves,
                            py::arg("build_seconds") = l.build_seconds,
                            py::arg("start_modularity") = l.start_modularity,
                            py::arg("passes") = passes));
    }
    return py::make_tuple(to_numpy(std::move(comm)), out);
}

// louvain_graph_communities: Louvain on a graph's own adjacency.
py::array louvain_graph_binding(Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt,
                                Arr<int64_t> vwgt, int64_t max_levels, int64_t max_passes,
                                double min_move_fraction, int64_t seed, double resolution,
                                int64_t max_weight, int64_t sub_rounds, bool prune,
                                double min_pass_gain, int64_t sub_round_min_arcs,
                                int64_t sub_round_rows_per_thread, int64_t barrier_spin_us,
                                bool async_moves) {
    const GraphView g = graph_view(xadj, adjncy, adjwgt, vwgt, "louvain_graph_communities");
    const LouvainArgs a = louvain_args(2, max_levels, max_passes, min_move_fraction, seed,
                                       resolution, max_weight, sub_rounds, prune, "clique",
                                       "hybrid", min_pass_gain, sub_round_min_arcs,
                                       sub_round_rows_per_thread, barrier_spin_us, async_moves);
    const LouvainParams p{a.max_levels, a.max_passes, a.min_move_fraction, a.seed,
                          a.resolution, a.max_weight, a.sub_rounds, a.prune, a.min_pass_gain,
                          a.sub_round_min_arcs, a.sub_round_rows_per_thread,
                          a.barrier_spin_us, a.async_moves};
    std::vector<int32_t> comm;
    {
        py::gil_scoped_release release;
        const StageThreads cap(g.xadj[g.n]);  // threads by the input's arcs
        comm = louvain_graph_communities(g, p);
    }
    return to_numpy(std::move(comm));
}

template <class F>
void def_louvain(py::module_ &m, const char *name, F f, const char *doc) {
    m.def(name, f, py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"),
          py::arg("vind"), py::arg("vwgt"), py::arg("max_net_size"), py::arg("max_levels"),
          py::arg("max_passes"), py::arg("min_move_fraction"), py::arg("seed"),
          py::arg("resolution") = 1.0, py::arg("max_weight") = 0, py::arg("sub_rounds") = 0,
          py::arg("prune") = false, py::arg("graph") = "clique",
          py::arg("edge_weight") = "hybrid", py::arg("min_pass_gain") = 0.0,
          py::arg("sub_round_min_arcs") = 0, py::arg("sub_round_rows_per_thread") = 0,
          py::arg("barrier_spin_us") = 0, py::arg("async_moves") = false, doc);
}

}  // namespace

void igp::bind_community(py::module_ &m) {
    def_louvain(m, "louvain_communities", &louvain_binding<false>,
                "Dense community id of every vertex (multilevel Louvain on the clique expansion "
                "or on the bipartite vertex + net graph).");
    def_louvain(m, "louvain_profile", &louvain_binding<true>,
                "louvain_communities and, per level, what it did: a list of dicts (nodes, arcs, "
                "communities, sub_rounds, async_moves, build_seconds, start_modularity, "
                "passes: rated, moved, seconds, modularity after the pass, estimated_gain; the "
                "modularity is computed outside the timed parts).");
    m.def("louvain_graph_communities", &louvain_graph_binding, py::arg("xadj"),
          py::arg("adjncy"), py::arg("adjwgt"), py::arg("vwgt"), py::arg("max_levels"),
          py::arg("max_passes"), py::arg("min_move_fraction"), py::arg("seed"),
          py::arg("resolution") = 1.0, py::arg("max_weight") = 0, py::arg("sub_rounds") = 0,
          py::arg("prune") = false, py::arg("min_pass_gain") = 0.0,
          py::arg("sub_round_min_arcs") = 0, py::arg("sub_round_rows_per_thread") = 0,
          py::arg("barrier_spin_us") = 0, py::arg("async_moves") = false,
          "Dense community id of every vertex of a graph (symmetric CSR, no self loops): "
          "multilevel Louvain on its own adjacency, arcs of weight 0 left out; the communities "
          "of louvain_communities on its edges as 2-pin nets, without building them.");
    def_order_run(m, "louvain_order_run", louvain_order_run(), "Louvain's asynchronous passes");
    m.def(
        "vertices_without_nets",
        [](Arr<int64_t> eptr, Arr<int64_t> vptr, Arr<int32_t> vind, int64_t min_size,
           int64_t max_size) {
            const View<int64_t> ep(eptr), vp(vptr);
            const View<int32_t> vi(vind);
            if (ep.n < 1 || vp.n < 1 || vp[vp.n - 1] != vi.n)
                throw std::invalid_argument("vertices_without_nets: inconsistent CSR arrays");
            const int64_t n = vp.n - 1, m = ep.n - 1;
            std::vector<uint8_t> alone(static_cast<size_t>(n), 0);
            {
                py::gil_scoped_release release;
#pragma omp parallel for schedule(dynamic, 4096) if (n >= kParallelMinLightItems)
                for (int64_t v = 0; v < n; ++v) {
                    bool none = true;
                    for (int64_t j = vp[v]; j < vp[v + 1] && none; ++j) {
                        const int32_t e = vi[j];
                        if (e < 0 || e >= m) continue;
                        const int64_t size = ep[e + 1] - ep[e];
                        none = size < min_size || size > max_size;
                    }
                    alone[v] = none ? 1 : 0;
                }
            }
            return to_numpy(std::move(alone));
        },
        py::arg("eptr"), py::arg("vptr"), py::arg("vind"), py::arg("min_size"),
        py::arg("max_size"),
        "1 for every vertex none of whose nets has min_size..max_size pins, else 0 (OpenMP).");
}
