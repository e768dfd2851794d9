#ifndef IMPORTER_CMALLOC_SHIM_H
#define IMPORTER_CMALLOC_SHIM_H
// glibc's allocator settings (mallopt), which the Glibc module does not export.
#include <malloc.h>
#endif
