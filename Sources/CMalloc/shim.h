// glibc's allocator tuning (mallopt), for RenderEngine's HeapPolicy.
#include <malloc.h>
