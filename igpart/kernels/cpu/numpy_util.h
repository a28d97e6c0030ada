// Helpers to move std::vector results into numpy arrays without a copy.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace igp {

template <class T, class A>
py::array_t<T> to_numpy(std::vector<T, A> &&v) {
    auto *heap = new std::vector<T, A>(std::move(v));
    py::capsule owner(heap, [](void *p) { delete reinterpret_cast<std::vector<T, A> *>(p); });
    return py::array_t<T>({static_cast<py::ssize_t>(heap->size())}, {sizeof(T)}, heap->data(),
                          owner);
}

// A read-only, C-contiguous 1-D view of a numpy array of exactly dtype T (callers convert first).
template <class T>
struct View {
    const T *p = nullptr;
    int64_t n = 0;
    View() = default;
    View(const py::array_t<T, py::array::c_style | py::array::forcecast> &a) {
        if (a.ndim() != 1) throw std::invalid_argument("expected a 1-D array");
        p = a.data();
        n = a.shape(0);
    }
    const T &operator[](int64_t i) const { return p[i]; }
};

template <class T>
using Arr = py::array_t<T, py::array::c_style | py::array::forcecast>;

// A parse error at a 1-based line of the input; surfaced in Python as _cpu.ParseError(line, msg).
struct ParseError : std::exception {
    int64_t line;
    std::string msg;
    ParseError(int64_t l, std::string m) : line(l), msg(std::move(m)) {}
    const char *what() const noexcept override { return msg.c_str(); }
};

}  // namespace igp
