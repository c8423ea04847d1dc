// glibc's allocator tuning (mallopt), for RenderEngine's PictureMemory.
#include <malloc.h>
