import CMalloc

/// glibc gives threads that allocate at the same time heaps (arenas) of their own, up to eight per core,
/// and a heap keeps what is freed in it. GStreamer's streaming threads come and go with every item, so a
/// node's resident memory crept up by ~9 MiB over 100,000 mixed commands; with two arenas it grew ~5 MiB.
/// The node's threads seldom allocate at once, so they lose nothing by sharing. Must run before any
/// thread starts.
func limitMallocArenas() {
    _ = mn_limit_malloc_arenas(2)
}
