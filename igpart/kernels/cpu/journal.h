// An undo journal over std::vectors: while it is open, a structure records what it is about to
// overwrite (an element, a range, a whole vector, or a vector's size), in order; undo() puts it
// all back, newest first, so that the structure returns byte for byte to its state at open().
// The cost is proportional to what is overwritten. Used by the host store (pma.h, hot_cache.h)
// within a transaction of the dynamic hypergraph.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace igp {

class Journal {
   public:
    bool on() const { return on_; }
    void open() {
        clear();
        on_ = true;
    }
    void clear() {
        on_ = false;
        entries_.clear();
        bytes_.clear();
    }
    // v[i] before it changes.
    template <class T>
    void element(std::vector<T> &v, int64_t i) {
        range(v, i, i + 1);
    }
    // v[begin, end) before it changes.
    template <class T>
    void range(std::vector<T> &v, int64_t begin, int64_t end) {
        if (!on_ || end <= begin) return;
        push(&v, begin, end - begin, v.data() + begin, &restore_range<T>);
    }
    // All of v (its size included) before it is re-assigned, cleared or re-ordered.
    template <class T>
    void whole(std::vector<T> &v) {
        if (on_) push(&v, -1, static_cast<int64_t>(v.size()), v.data(), &restore_whole<T>);
    }
    // The size of v before it grows or shrinks (the elements kept are unchanged).
    template <class T>
    void size(std::vector<T> &v) {
        if (on_)
            push(&v, -1, static_cast<int64_t>(v.size()), static_cast<const T *>(nullptr),
                 &restore_size<T>);
    }
    // Restores everything recorded, newest first, and closes the journal.
    void undo() {
        on_ = false;
        for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
            it->restore(it->vec, bytes_.data() + it->offset, it->index, it->count);
        clear();
    }

   private:
    using Restore = void (*)(void *, const char *, int64_t, int64_t);
    struct Entry {
        void *vec;
        int64_t index, count;
        size_t offset;
        Restore restore;
    };
    bool on_ = false;
    std::vector<Entry> entries_;
    std::vector<char> bytes_;

    template <class T>
    void push(std::vector<T> *v, int64_t index, int64_t count, const T *data, Restore r) {
        const size_t offset = bytes_.size();
        if (data != nullptr && count > 0) {
            bytes_.resize(offset + static_cast<size_t>(count) * sizeof(T));
            std::memcpy(bytes_.data() + offset, data, static_cast<size_t>(count) * sizeof(T));
        }
        entries_.push_back({v, index, count, offset, r});
    }
    template <class T>
    static void restore_range(void *v, const char *data, int64_t index, int64_t count) {
        std::memcpy(static_cast<std::vector<T> *>(v)->data() + index, data,
                    static_cast<size_t>(count) * sizeof(T));
    }
    template <class T>
    static void restore_whole(void *v, const char *data, int64_t, int64_t count) {
        auto &vec = *static_cast<std::vector<T> *>(v);
        vec.resize(static_cast<size_t>(count));
        if (count > 0) std::memcpy(vec.data(), data, static_cast<size_t>(count) * sizeof(T));
    }
    template <class T>
    static void restore_size(void *v, const char *, int64_t, int64_t count) {
        static_cast<std::vector<T> *>(v)->resize(static_cast<size_t>(count));
    }
};

}  // namespace igp
