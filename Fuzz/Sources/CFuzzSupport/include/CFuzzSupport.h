#ifndef CFUZZSUPPORT_H
#define CFUZZSUPPORT_H
#include <stddef.h>

/// When non-zero, every read(2) of a descriptor above 2 made through `__wrap_read` returns at most
/// this many bytes (targets linked with `-Xlinker --wrap=read`): short reads at chosen sizes.
void fuzz_set_read_limit(size_t limit);
size_t fuzz_read_limit(void);
#endif
