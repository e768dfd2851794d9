#ifndef IMPORTER_CLIBXML2_SHIM_H
#define IMPORTER_CLIBXML2_SHIM_H
// Debian's libxml2 headers pull in the system ICU, whose types clash with Foundation's own ICU in a
// module that imports both; importer never uses libxml2's ICU support.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#endif
