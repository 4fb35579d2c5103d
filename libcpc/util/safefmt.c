/* SPDX-License-Identifier: MIT */
/* An async-signal-safe subset of vsnprintf: no locale, no malloc. */
#include "safefmt.h"

#include <stdint.h>

struct out {
	char *buf;
	size_t n;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->n)
		o->buf[o->len] = c;
	o->len++;
}

static void put_num(struct out *o, unsigned long long v, unsigned base,
    int upper, int neg, int width, char pad)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int i = 0;

	do {
		tmp[i++] = digits[v % base];
		v /= base;
	} while (v != 0);
	if (neg)
		tmp[i++] = '-';
	for (int w = i; w < width; w++)
		put(o, pad);
	while (i > 0)
		put(o, tmp[--i]);
}

size_t __cpc_safe_vfmt(char *buf, size_t n, const char *fmt, va_list ap)
{
	struct out o = { buf, n, 0 };

	for (const char *p = fmt; *p != '\0'; p++) {
		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		p++;
		char pad = ' ';
		int width = 0, lng = 0, sz = 0;
		if (*p == '0') {
			pad = '0';
			p++;
		}
		while (*p >= '0' && *p <= '9')
			width = width * 10 + (*p++ - '0');
		while (*p == 'l') {
			lng++;
			p++;
		}
		if (*p == 'z') {
			sz = 1;
			p++;
		}
		switch (*p) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (s == NULL)
				s = "(null)";
			while (*s != '\0')
				put(&o, *s++);
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 'd':
		case 'i': {
			long long v;
			if (lng >= 2)
				v = va_arg(ap, long long);
			else if (lng == 1 || sz)
				v = va_arg(ap, long);
			else
				v = va_arg(ap, int);
			unsigned long long m = v < 0 ? 0ULL - (unsigned long long)v
						     : (unsigned long long)v;
			put_num(&o, m, 10, 0, v < 0, width, pad);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			unsigned long long v;
			if (lng >= 2)
				v = va_arg(ap, unsigned long long);
			else if (lng == 1 || sz)
				v = va_arg(ap, unsigned long);
			else
				v = va_arg(ap, unsigned int);
			put_num(&o, v, *p == 'u' ? 10 : 16, *p == 'X', 0, width,
			    pad);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, (uintptr_t)va_arg(ap, void *), 16, 0, 0, 0,
			    ' ');
			break;
		case '%':
			put(&o, '%');
			break;
		case '\0':
			p--;
			break;
		default:
			put(&o, '%');
			put(&o, *p);
			break;
		}
	}
	if (n > 0)
		buf[o.len < n ? o.len : n - 1] = '\0';
	return o.len < n ? o.len : (n > 0 ? n - 1 : 0);
}

size_t __cpc_safe_fmt(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t r = __cpc_safe_vfmt(buf, n, fmt, ap);
	va_end(ap);
	return r;
}
