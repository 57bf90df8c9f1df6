/* index/lazy_xml.c: the libxml2 functions index/html.c and index/s3xml.c call, loaded on first use
 * (see lazylib.h). libxml2 brings ICU with it; only a crawl of an HTML page needs them. */
#include "base/lazylib.h"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#define FWD(ret, name, params, args) WP_LAZY_FORWARD(wp_lazy_xml, ret, name, params, args)
#define FWD_VOID(name, params, args) WP_LAZY_FORWARD_VOID(wp_lazy_xml, name, params, args)

FWD_VOID(xmlInitParser, (void), ())
FWD(htmlParserCtxtPtr, htmlCreateMemoryParserCtxt, (const char *buffer, int size), (buffer, size))
FWD(htmlParserCtxtPtr, htmlNewParserCtxt, (void), ())
FWD(htmlDocPtr, htmlCtxtReadIO,
    (htmlParserCtxtPtr ctxt, xmlInputReadCallback ioread, xmlInputCloseCallback ioclose,
     void *ioctx, const char *URL, const char *encoding, int options),
    (ctxt, ioread, ioclose, ioctx, URL, encoding, options))
FWD(int, htmlCtxtUseOptions, (htmlParserCtxtPtr ctxt, int options), (ctxt, options))
FWD(int, htmlParseDocument, (htmlParserCtxtPtr ctxt), (ctxt))
FWD_VOID(htmlFreeParserCtxt, (htmlParserCtxtPtr ctxt), (ctxt))
FWD_VOID(xmlStopParser, (xmlParserCtxtPtr ctxt), (ctxt))
FWD_VOID(xmlFreeDoc, (xmlDocPtr cur), (cur))
FWD(xmlDocPtr, xmlReadMemory,
    (const char *buffer, int size, const char *URL, const char *encoding, int options),
    (buffer, size, URL, encoding, options))
FWD(xmlNodePtr, xmlDocGetRootElement, (const xmlDoc *doc), (doc))
