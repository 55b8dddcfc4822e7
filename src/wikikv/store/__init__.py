"""The storage core: paths, records, keys, backends and the kb tree protocol."""
