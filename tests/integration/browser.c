// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <zlib.h>
#include "browser.h"
#include "driver.h"

static double run_chromium(char *const argv[], const char *out, const char *log,
			   int timeout_s)
{
	double t0 = now_s();
	int status = wait_status(spawn(argv, out, log), timeout_s);
	char *text;

	if (status == 127)
		cr_assert_fail("chromium cannot be started: is Debian's chromium installed "
			       "(make deps-test)?");
	if (status < 0)
		cr_assert_fail("chromium did not finish within %d s", timeout_s);
	if (status) {
		text = slurp(log);
		cr_assert_fail("chromium exited with status %d: %.300s", status,
			       text ? text : "(no log)");
	}
	return now_s() - t0;
}

/* A profile of its own, so that runs do not share state or lock each other out. */
static const char *profile_dir(char *buf, size_t size)
{
	static int n;
	char name[32];

	snprintf(name, sizeof(name), "chromium-profile-%d", n++);
	return scratch_file(name, buf, size);
}

double browser_screenshot(const char *page, const char *png, int width, int height,
			  const char *log, int timeout_s)
{
	char shot[512], size[64], url[512], profile[512], user_dir[600];

	snprintf(shot, sizeof(shot), "--screenshot=%s", png);
	snprintf(size, sizeof(size), "--window-size=%d,%d", width, height);
	snprintf(url, sizeof(url), "file://%s", page);
	snprintf(user_dir, sizeof(user_dir), "--user-data-dir=%s",
		 profile_dir(profile, sizeof(profile)));
	{
		char *argv[] = { "chromium", "--headless", "--no-sandbox", "--disable-gpu",
				 "--hide-scrollbars", "--no-first-run", "--enable-logging=stderr",
				 "--v=0", user_dir, size, shot, url, NULL };
		double s = run_chromium(argv, NULL, log, timeout_s);

		cr_assert(access(png, R_OK) == 0, "chromium wrote no screenshot %s", png);
		return s;
	}
}

double browser_dump_dom(const char *page, const char *dom, const char *log, int timeout_s)
{
	char url[512], profile[512], user_dir[600];

	snprintf(url, sizeof(url), "file://%s", page);
	snprintf(user_dir, sizeof(user_dir), "--user-data-dir=%s",
		 profile_dir(profile, sizeof(profile)));
	{
		char *argv[] = { "chromium", "--headless", "--no-sandbox", "--disable-gpu",
				 "--no-first-run", "--enable-logging=stderr", "--v=0", user_dir,
				 "--dump-dom", url, NULL };


		return run_chromium(argv, dom, log, timeout_s);
	}
}

size_t browser_console_lines(const char *log, char *first, size_t size)
{
	char *text = slurp(log), *line, *save = NULL;
	size_t n = 0;

	if (size)
		first[0] = 0;
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, ":CONSOLE"))
			continue;
		if (!n++ && size)
			snprintf(first, size, "%s", line);
	}
	free(text);
	return n;
}

static uint32_t be32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

void png_read(const char *path, struct png_image *out)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	FILE *f = fopen(path, "rb");
	unsigned char *file, *idat = NULL, *raw;
	size_t len, nidat = 0, bpp = 0, stride;
	uLongf rawlen;
	long size;

	cr_assert(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	file = malloc(size);
	cr_assert(file && fread(file, 1, size, f) == (size_t)size, "cannot read %s", path);
	fclose(f);
	cr_assert(size > 8 && !memcmp(file, sig, 8), "%s is not a PNG", path);
	*out = (struct png_image){};
	for (size_t off = 8; off + 12 <= (size_t)size; off += 12 + len) {
		const unsigned char *type = file + off + 4, *data = file + off + 8;

		len = be32(file + off);
		cr_assert(off + 12 + len <= (size_t)size, "%s: truncated chunk", path);
		if (!memcmp(type, "IHDR", 4)) {
			out->width = be32(data);
			out->height = be32(data + 4);
			cr_assert(data[8] == 8 && (data[9] == 2 || data[9] == 6) && data[12] == 0,
				  "%s: not 8-bit RGB(A) non-interlaced (depth %d, color type %d)",
				  path, data[8], data[9]);
			bpp = data[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			idat = realloc(idat, nidat + len);
			memcpy(idat + nidat, data, len);
			nidat += len;
		}
	}
	cr_assert(bpp && nidat, "%s: no image data", path);
	stride = out->width * bpp;
	rawlen = (stride + 1) * out->height;
	raw = malloc(rawlen);
	cr_assert(uncompress(raw, &rawlen, idat, nidat) == Z_OK &&
			  rawlen == (stride + 1) * out->height,
		  "%s: bad image data", path);
	out->rgb = malloc(sizeof(*out->rgb) * out->width * out->height);
	for (uint32_t y = 0; y < out->height; y++) {
		unsigned char *row = raw + y * (stride + 1) + 1;
		unsigned char *up = y ? raw + (y - 1) * (stride + 1) + 1 : NULL;

		for (size_t x = 0; x < stride; x++) {
			int a = x >= bpp ? row[x - bpp] : 0, b = up ? up[x] : 0;
			int c = up && x >= bpp ? up[x - bpp] : 0;

			switch (row[-1]) {
			case 0: break;
			case 1: row[x] += a; break;
			case 2: row[x] += b; break;
			case 3: row[x] += (a + b) / 2; break;
			case 4: row[x] += paeth(a, b, c); break;
			default: cr_assert_fail("%s: bad filter %d", path, row[-1]);
			}
		}
		for (uint32_t x = 0; x < out->width; x++)
			out->rgb[y * out->width + x] = row[x * bpp] << 16 | row[x * bpp + 1] << 8 |
						       row[x * bpp + 2];
	}
	free(raw);
	free(idat);
	free(file);
}

void png_free(struct png_image *img)
{
	free(img->rgb);
	img->rgb = NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

size_t png_colors(const struct png_image *img, size_t max)
{
	size_t n = (size_t)img->width * img->height, distinct = 0;
	uint32_t *c = malloc(n * sizeof(*c));

	memcpy(c, img->rgb, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_u32);
	for (size_t i = 0; i < n && distinct < max; i++)
		distinct += !i || c[i] != c[i - 1];
	free(c);
	return distinct;
}

size_t png_pixels_near(const struct png_image *img, uint32_t color, int tol)
{
	size_t n = 0;

	for (size_t i = 0; i < (size_t)img->width * img->height; i++) {
		uint32_t p = img->rgb[i];
		int dr = abs((int)(p >> 16) - (int)(color >> 16));
		int dg = abs((int)(p >> 8 & 0xff) - (int)(color >> 8 & 0xff));
		int db = abs((int)(p & 0xff) - (int)(color & 0xff));

		n += dr <= tol && dg <= tol && db <= tol;
	}
	return n;
}
