#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "c_nio_llhttp.h"
/* Mimic NIO: first span start + sum of span lengths (BetterHTTPParser.start/finish/validateHeaderLength) */
static const char *fstart, *vstart; static size_t flen, vlen; static int state; /* 0 none,1 name,2 value */
static void dump(const char *tag, const char *p, size_t n){ printf("  %s[%zu]=\"",tag,n); for(size_t i=0;i<n;i++){unsigned char c=p[i]; if(c>=0x21&&c<0x7f&&c!='"'&&c!='\\')putchar(c); else printf("\\x%02X",c);} printf("\"\n"); }
static void flushv(void){ if(state==2){ dump("NIO value",vstart,vlen); } }
static int on_field(llhttp_t*p,const char*at,size_t n){ if(!getenv("SPLIT"))printf("    cb field span %zu\n",n); if(state!=1){flushv(); fstart=at; flen=0; state=1;} flen+=n; return 0; }
static int on_value(llhttp_t*p,const char*at,size_t n){ if(!getenv("SPLIT"))printf("    cb value span len %zu\n",n); if(state==1){ dump("NIO name",fstart,flen); vstart=at; vlen=0; state=2;} vlen+=n; return 0; }
static int on_hc(llhttp_t*p){ flushv(); state=0; printf("  headers complete status %d\n", p->status_code); return 0; }
static void run(const char *label, const char *buf, size_t len){
  llhttp_settings_t s; c_nio_llhttp_settings_init(&s);
  s.on_header_field=on_field; s.on_header_value=on_value; s.on_headers_complete=on_hc;
  llhttp_t p; c_nio_llhttp_init(&p, HTTP_RESPONSE, &s); state=0;
  printf("== %s (lenient_flags=%u)\n", label, p.lenient_flags);
  llhttp_errno_t e = HPE_OK;
  if (getenv("SPLIT")) { for (size_t i=0;i<len && e==HPE_OK;i++) e = c_nio_llhttp_execute(&p, buf+i, 1); }
  else e = c_nio_llhttp_execute(&p, buf, len);
  if(e!=HPE_OK && e!=HPE_PAUSED) printf("  ERROR %s: %s\n", c_nio_llhttp_errno_name(e), c_nio_llhttp_get_error_reason(&p));
  else printf("  OK\n");
}
#define R(l,s) run(l, s, sizeof(s)-1)
#define PRE "HTTP/1.1 200 OK\r\n"
#define POST "Content-Length: 0\r\n\r\n"
int main(void){
  R("baseline", PRE "X-A:  \t v a l \t \r\n" POST);
  R("trailing SP/HTAB", PRE "X-A: val \t \r\n" POST);
  R("value only whitespace", PRE "X-A: \t \r\n" POST);
  R("empty value", PRE "X-A:\r\n" POST);
  R("HTAB inside", PRE "X-A: a\tb\r\n" POST);
  R("NUL", PRE "X-A: a\x00" "b\r\n" POST);
  R("0x01", PRE "X-A: a\x01" "b\r\n" POST);
  R("0x08", PRE "X-A: a\x08" "b\r\n" POST);
  R("0x0B VT", PRE "X-A: a\x0b" "b\r\n" POST);
  R("0x0C FF", PRE "X-A: a\x0c" "b\r\n" POST);
  R("0x1F", PRE "X-A: a\x1f" "b\r\n" POST);
  R("DEL", PRE "X-A: a\x7f" "b\r\n" POST);
  R("0x80", PRE "X-A: a\x80" "b\r\n" POST);
  R("0xFF", PRE "X-A: a\xff" "b\r\n" POST);
  R("bare CR mid", PRE "X-A: a\rb\r\n" POST);
  R("bare LF mid", PRE "X-A: a\nb: c\r\n" POST);
  R("obs-fold SP", PRE "X-A: a\r\n b\r\n" POST);
  R("obs-fold HTAB", PRE "X-A: a\r\n\tb\r\n" POST);
  R("obs-fold after empty", PRE "X-A:\r\n b\r\n" POST);
  R("name 0x80", PRE "X-\x80: v\r\n" POST);
  R("name space before colon", PRE "X-A : v\r\n" POST);
  R("name HTAB before colon", PRE "X-A\t: v\r\n" POST);
  R("name '('", PRE "X(A: v\r\n" POST);
  R("name empty", PRE ": v\r\n" POST);
  R("name all tchar", PRE "!#$%&'*+-.^_`|~09AZaz: v\r\n" POST);
  R("name DEL", PRE "X\x7f: v\r\n" POST);
  R("leading SP before first header", PRE " X-A: v\r\n" POST);
  R("special: Connection ctl", PRE "Connection: close\x01x\r\n" POST);
  R("special: Connection 0x80", PRE "Connection: keep-alive, \x80x\r\n" POST);
  R("special: Connection trailing ws", PRE "Connection: close \t\r\n" POST);
  R("special: Connection DEL", PRE "Connection: clo\x7fse\r\n" POST);
  R("special: Upgrade ctl", PRE "Upgrade: a\x01" "b\r\n" POST);
  R("special: TE ctl", PRE "Transfer-Encoding: gzip\x01, chunked\r\n\r\n");
  R("special: TE 0x80 + trailing", PRE "Transfer-Encoding: g\xffzip , chunked \t\r\n\r\n0\r\n\r\n");
  R("special: TE DEL", PRE "Transfer-Encoding: g\x7fzip, chunked\r\n\r\n");
  R("special: CL trailing ws", PRE "Content-Length: 0 \t\r\n\r\n");
  R("special: Proxy-Connection ctl", PRE "Proxy-Connection: a\x01\r\n" POST);
  R("special: Content-Length ctl", PRE "Content-Length: 0\x01\r\n\r\n");
  R("LF-only line end", PRE "X-A: v\n" POST);
  R("trailer name/value ctl", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: a\x01" "b\r\n\r\n");
  R("Upgrade 0x80", PRE "Upgrade: a\x80 b\r\n" POST);
  R("Connection HTAB inside", PRE "Connection: a\tb\r\n" POST);
  R("Connection\\x80 name", PRE "Connection\x80: x\r\n" POST);
  R("Content-Length SP colon", PRE "Content-Length : 0\r\n\r\n");
  R("1xx informational trailing ws", "HTTP/1.1 103 Early Hints\r\nLink: </a> \t\r\n\r\n");
  R("long value ctl@20", PRE "X-Long: 0123456789abcdefghij\x01xyz0123456789abcdef\r\n" POST);
  R("long value DEL@17", PRE "X-Long: 0123456789abcdefg\x7fxyz0123456789abcdef\r\n" POST);
  R("long value CR@18", PRE "X-Long: 0123456789abcdefgh\rxyz0123456789abcdef\r\n" POST);
  R("long value obs-text ok", PRE "X-Long: 0123456789\xc0\x80\xff\xfe abcdefgh\txyz0123456789abcdef  \r\n" POST);
  R("long name paren@18", PRE "X-0123456789abcdef(g: v\r\n" POST);
  R("long name 0x80@18", PRE "X-0123456789abcdef\x80g: v\r\n" POST);
  R("trailer ctl", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: a\x01b\r\n\r\n");
  R("trailer trailing ws", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: a \r\n\r\n");
  return 0;
}
