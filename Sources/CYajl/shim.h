#ifndef IMPORTER_CYAJL_SHIM_H
#define IMPORTER_CYAJL_SHIM_H
// yajl's streaming (callback) parser, for importer-bench's parser comparison only.
#include <yajl/yajl_parse.h>
#endif
