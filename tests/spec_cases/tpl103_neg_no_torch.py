# codes: TPL103
import cupy

pool = cupy.get_default_memory_pool()
for chunk in chunks:
    process(chunk)
    pool.free_all_blocks()
    cuda.empty_cache()
