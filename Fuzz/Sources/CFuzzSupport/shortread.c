#include "CFuzzSupport.h"
#include <sys/types.h>
#include <unistd.h>

static size_t read_limit = 0;

void fuzz_set_read_limit(size_t limit) { read_limit = limit; }
size_t fuzz_read_limit(void) { return read_limit; }

// With `-Xlinker --wrap=read`, the executable's own references to read(2) (ImporterKit's
// ByteSource, linked statically) come here; `__real_read` is the real one (or ASan's interceptor).
ssize_t __real_read(int fd, void *buffer, size_t count);

ssize_t __wrap_read(int fd, void *buffer, size_t count) {
    if (read_limit > 0 && fd > 2 && count > read_limit) count = read_limit;
    return __real_read(fd, buffer, count);
}
