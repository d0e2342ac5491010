/* The matcher's two hot loops in C: the words of a text, normalised and its markup cut, hashed
 * into k-shingles in one pass (text_shingles), and the chaining of anchors into passages.
 * filter/normalise.py, filter/shingles.py and filter/align.py hold the pure-Python reference
 * of each, and are the fallback when this module is not built (filter/speedups.py);
 * tests/filter checks both give the same results.
 *
 * Words. A word is what the pure-Python tokeniser's regex `[^\W_](?:[^\W_]|[MARKS])*` finds:
 * a letter or digit, then letters, digits and combining marks. "Letter or digit" is
 * Py_UNICODE_ISALNUM, the very test CPython's re module makes for `\w` in a str pattern
 * (Modules/_sre/sre.c: SRE_UNI_IS_WORD(ch) is SRE_UNI_IS_ALNUM(ch) || ch == '_', and
 * SRE_UNI_IS_ALNUM is Py_UNICODE_ISALNUM), so `[^\W_]` is ISALNUM; tests/filter checks every
 * code point. The marks are handed over by filter/normalise.py (set_marks), from the same
 * ranges its regex is built of. The words are read from the text as filter/normalise.py's
 * word_bytes reads them: ASCII as it stands, its letters lowered here; any other text
 * NFKC-normalised and casefolded first (by pieces whose forms Python's unicodedata gives once,
 * see normalised below); then its markup cut (strip_markup below).
 *
 * Hashes. Each word is hashed as UTF-8 with xxh3-64 (XXH3_64bits, which python-xxhash's
 * xxh3_64_intdigest is), and the hash of the shingle at token i is the polynomial
 * h[i] * M^(k-1) + ... + h[i+k-1] over 2**64 that filter/shingles.py's _mix computes.
 * xxhash.h is vendored from the xxhash 4.1.0 sdist (xxHash 0.8.4, BSD-2-Clause:
 * vendor/xxhash/LICENSE).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define XXH_INLINE_ALL
#include "vendor/xxhash/xxhash.h"

/* filter/speedups.py refuses a build whose API is not the one it was written for (a stale .so
 * left in an editable checkout). Bump on any change of a function's arguments or results. */
#define SPEEDUPS_API 12

static const uint64_t MULTIPLIER = 0x9E3779B97F4A7C15ULL;

/* -- character classes ------------------------------------------------------------------- */

#define N_CODES 0x110000
static unsigned char *mark_bits = NULL; /* one bit a code point: a combining mark that joins */
static unsigned char ascii_word[128]; /* an ASCII letter or digit: not_word8's, a byte at a time */

static inline int
is_word(Py_UCS4 c)
{
    return c < 128 ? ascii_word[c] : Py_UNICODE_ISALNUM(c);
}

static inline int
is_mark(Py_UCS4 c)
{
    return c >= 0x80 && ((mark_bits[c >> 3] >> (c & 7)) & 1); /* (set_marks: none is ASCII) */
}

static PyObject *
set_marks(PyObject *self, PyObject *ranges)
{
    PyObject *seq = PySequence_Fast(ranges, "set_marks: a sequence of (first, last) ranges");
    if (seq == NULL)
        return NULL;
    unsigned char *bits = PyMem_Calloc(N_CODES / 8, 1);
    if (bits == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t r = 0; r < n; r++) {
        long first, last;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, r), "ll", &first, &last)) {
            PyMem_Free(bits);
            Py_DECREF(seq);
            return NULL;
        }
        if (first < 0x80 || last >= N_CODES || first > last) {
            PyErr_Format(PyExc_ValueError, "set_marks: bad range %ld..%ld", first, last);
            PyMem_Free(bits);
            Py_DECREF(seq);
            return NULL;
        }
        for (long c = first; c <= last; c++)
            bits[c >> 3] |= (unsigned char)(1 << (c & 7));
    }
    Py_DECREF(seq);
    PyMem_Free(mark_bits);
    mark_bits = bits;
    Py_RETURN_NONE;
}

static inline int is_blank(Py_UCS4 c);
static inline int is_decimal(Py_UCS4 c);

/* char_classes() -> bytes: for each code point, how this module classes it, for the tests to
 * compare with the re module's: bit 1 a letter or digit ([^\W_]), 2 a combining mark that
 * joins a word (set_marks), 4 whitespace (\s), 8 a decimal digit (\d). */
static PyObject *
char_classes(PyObject *self, PyObject *unused)
{
    if (mark_bits == NULL)
        return PyErr_Format(PyExc_RuntimeError, "set_marks was never called");
    PyObject *classes = PyBytes_FromStringAndSize(NULL, N_CODES);
    if (classes == NULL)
        return NULL;
    char *out = PyBytes_AS_STRING(classes);
    for (Py_UCS4 c = 0; c < N_CODES; c++)
        out[c] = (char)((is_word(c) ? 1 : 0) | (is_mark(c) ? 2 : 0) |
                        (Py_UNICODE_ISSPACE(c) ? 4 : 0) | (is_decimal(c) ? 8 : 0));
    return classes;
}

/* -- growable buffers -------------------------------------------------------------------- */

/* An array of items of one size that doubles as it fills; len and cap count items. Zeroed
 * ({0}) it is empty, and PyMem_Free(data) frees it. */
typedef struct {
    void *data;
    Py_ssize_t len, cap;
} Growable;

/* Twice the room (the first time, room for `first` items of `size` bytes); -1 with
 * MemoryError when there is none. The pushes below call it only when the array is full. */
static int
growable_grow(Growable *b, size_t size, Py_ssize_t first)
{
    if (b->cap > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)size) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t cap = b->cap ? b->cap * 2 : first;
    void *data = PyMem_Realloc(b->data, cap * size);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

static inline int
u64s_push(Growable *b, uint64_t value)
{
    if (b->len == b->cap && growable_grow(b, sizeof value, 1024) < 0)
        return -1;
    ((uint64_t *)b->data)[b->len++] = value;
    return 0;
}

static inline int
u32s_push(Growable *b, uint32_t value)
{
    if (b->len == b->cap && growable_grow(b, sizeof value, 256) < 0)
        return -1;
    ((uint32_t *)b->data)[b->len++] = value;
    return 0;
}

/* growable_grow without the GIL: the raw allocator, and -1 without an exception set (the
 * caller sets MemoryError once it holds the GIL again); PyMem_RawFree(data) frees it. */
static int
raw_grow(Growable *b, size_t size, Py_ssize_t first)
{
    if (b->cap > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)size)
        return -1;
    Py_ssize_t cap = b->cap ? b->cap * 2 : first;
    void *data = PyMem_RawRealloc(b->data, cap * size);
    if (data == NULL)
        return -1;
    b->data = data;
    b->cap = cap;
    return 0;
}

/* u32s_push and u64s_push without the GIL (raw_grow). */
static inline int
raw_u32s_push(Growable *b, uint32_t value)
{
    if (b->len == b->cap && raw_grow(b, sizeof value, 256) < 0)
        return -1;
    ((uint32_t *)b->data)[b->len++] = value;
    return 0;
}

static inline int
raw_u64s_push(Growable *b, uint64_t value)
{
    if (b->len == b->cap && raw_grow(b, sizeof value, 1024) < 0)
        return -1;
    ((uint64_t *)b->data)[b->len++] = value;
    return 0;
}

typedef struct {
    unsigned char *data;
    Py_ssize_t cap;
} Bytes;

/* bytes_reserve without the GIL: the raw allocator, -1 without an exception set. */
static int
raw_bytes_reserve(Bytes *b, Py_ssize_t size)
{
    if (size <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < size)
        cap *= 2;
    unsigned char *data = PyMem_RawRealloc(b->data, cap);
    if (data == NULL)
        return -1;
    b->data = data;
    b->cap = cap;
    return 0;
}

/* -- words and their hashes -------------------------------------------------------------- */

static inline Py_ssize_t
put_utf8(unsigned char *out, Py_UCS4 c)
{
    if (c < 0x80) {
        out[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (unsigned char)(0xC0 | (c >> 6));
        out[1] = (unsigned char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (c >> 12));
        out[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (c >> 18));
    out[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
}

static inline Py_UCS4
ascii_lower(Py_UCS4 c)
{
    return c + ((Py_UCS4)(c - 'A' < 26u) << 5); /* (no branch: a stretch's loop vectorises) */
}

/* Eight ASCII characters in a word, the first in the low byte: 0x80 in each byte that is not
 * a letter or digit, and the eight lowered. (Each byte below 0x80: a sum stays in its byte.) */
#define EACH_BYTE(b) (0x0101010101010101ULL * (b))
#define HIGH_BITS EACH_BYTE(0x80)
#define IN_RANGE(v, lo, hi)                                                                    \
    (((v) + EACH_BYTE(0x80 - (lo))) & ~((v) + EACH_BYTE(0x7F - (hi))) & HIGH_BITS)

static inline uint64_t
not_word8(uint64_t v)
{
    return ~(IN_RANGE(v | EACH_BYTE(0x20), 'a', 'z') | IN_RANGE(v, '0', '9')) & HIGH_BITS;
}

static inline uint64_t
lowered8(uint64_t v)
{
    return v | (IN_RANGE(v, 'A', 'Z') >> 2);
}

/* Where a word under way ends within the eight ASCII characters `v` read from `from` on, their
 * bytes lowered onto `into`: the word's end, or -1 when it goes on past them. Words are short:
 * most end in their first eight, with no branch on each character. */
static inline Py_ssize_t
word_end8(uint64_t v, Py_ssize_t from, unsigned char *into)
{
    uint64_t lowered = lowered8(v), ends = not_word8(v);
    memcpy(into, &lowered, 8);
    return ends ? from + (__builtin_ctzll(ends) >> 3) : -1;
}

/* The word of an ASCII text that starts at i (a letter or digit), lowered, hashed onto `out`:
 * where it ends. Here and below without the GIL (text_shingles releases it): the raw
 * allocator, and -1 without an exception set when it has no room. */
static inline Py_ssize_t
hash_ascii_word(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, Growable *out, Bytes *word)
{
    Py_ssize_t start = i, end = -1;
    if (raw_bytes_reserve(word, n - i + 8) < 0)
        return -1;
    for (; end < 0 && i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        end = word_end8(v, i, word->data + (i - start));
    }
    if (end < 0) /* (the last characters of the text, one at a time) */
        for (end = i; end < n && ascii_word[s[end]]; end++)
            word->data[end - start] = (unsigned char)ascii_lower(s[end]);
    if (raw_u64s_push(out, XXH3_64bits(word->data, (size_t)(end - start))) < 0)
        return -1;
    return end;
}

/* Whether eight code points are ASCII, and then their bytes in *v, the first in the low byte */
static inline int
ascii8(const Py_UCS4 *s, uint64_t *v)
{
#ifdef __SSE2__
    /* narrowed with saturation: a code point from 0x80 up stays one (a byte from 0x80 up) */
    __m128i halves = _mm_packs_epi32(_mm_loadu_si128((const __m128i *)s),
                                     _mm_loadu_si128((const __m128i *)(s + 4)));
    __m128i bytes = _mm_packus_epi16(halves, halves);
    if (_mm_movemask_epi8(bytes) & 0xFF)
        return 0;
    _mm_storel_epi64((__m128i *)v, bytes);
    return 1;
#else
    uint32_t any = 0;
    unsigned char bytes[8];
    for (int j = 0; j < 8; j++) {
        any |= s[j];
        bytes[j] = (unsigned char)s[j];
    }
    memcpy(v, bytes, 8);
    return any < 0x80;
#endif
}

/* The word of a normalised text (code points) that starts at i (a letter or digit), hashed
 * as UTF-8 onto `out`, its bytes written as it is read: where it ends, or -1. Eight ASCII
 * code points at a time as above, then (from one that is not ASCII) one at a time. */
static inline Py_ssize_t
hash_ucs4_word(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i, Growable *out, Bytes *word)
{
    if (raw_bytes_reserve(word, 4 * (n - i) + 8) < 0)
        return -1;
    Py_ssize_t len = 0, end = -1;
    for (uint64_t v; end < 0 && i + 8 <= n && ascii8(s + i, &v); i += 8, len += 8)
        end = word_end8(v, i, word->data + len);
    if (end >= 0) {
        len += end - i; /* (the loop stepped past the block the word ends in) */
        i = end;
    } else {
        Py_UCS4 c;
        while (i < n && (is_word(c = s[i]) || is_mark(c))) {
            len += put_utf8(word->data + len, ascii_lower(c));
            i++;
        }
    }
    if (raw_u64s_push(out, XXH3_64bits(word->data, (size_t)len)) < 0)
        return -1;
    return i;
}

/* Every window of k consecutive word hashes of one text mixed into a shingle hash, the texts'
 * one after another: `hashes` holds count_of[t] word hashes of text t, in order, and `out`
 * room for the shingles (max(count - k + 1, 0) a text). Without the GIL.
 *
 * The mix is Horner's ((h[i] * M + h[i+1]) * M + ...) + h[i+k-1] (mod 2^64). For k = 5
 * (DEFAULT_PARAMS.k) it is summed expanded, h[i] * M^4 + ... + h[i+4]: the same number, its
 * products independent of each other rather than a chain. */
static void
mix_shingles(const uint64_t *h, const int64_t *count_of, Py_ssize_t n_texts, Py_ssize_t k,
             uint64_t *out)
{
    const uint64_t m2 = MULTIPLIER * MULTIPLIER, m3 = m2 * MULTIPLIER, m4 = m3 * MULTIPLIER;
    for (Py_ssize_t t = 0; t < n_texts; t++) {
        if (k == 5)
            for (Py_ssize_t i = 0; i + 5 <= count_of[t]; i++)
                *out++ = h[i] * m4 + h[i + 1] * m3 + h[i + 2] * m2 + h[i + 3] * MULTIPLIER +
                         h[i + 4];
        else
            for (Py_ssize_t i = 0; i + k <= count_of[t]; i++) {
                uint64_t value = h[i];
                for (Py_ssize_t offset = 1; offset < k; offset++)
                    value = value * MULTIPLIER + h[i + offset];
                *out++ = value;
            }
        h += count_of[t];
    }
}

/* -- markup ------------------------------------------------------------------------------
 *
 * strip_markup(text) is filter/markup.py's cut_markup(text), for a text that is ASCII or
 * normalised already (the rules read the normalised text): its _MARKUP applied to "\n" + text,
 * a match that starts with a line break replaced by "\n" and any other by " ". The regexes are
 * matched here by hand: every part of them is greedy and can only succeed one way (a shorter
 * repeat leaves a character the next part cannot start with), so each rule is a straight scan;
 * the one choice the regex makes is the optional prefix before a fence or list number (a gutter,
 * a path, a diff's "+"), tried first with each prefix in the regex's order, then without, then
 * the bare prefix. A line match holds one line break (or escaped one), at its start, and the
 * inline rules none, so one pass that tries the line rules at each line break (and at each
 * escaped one, "\\n") and the inline rules at each "<", "&", "\\" and "^" gives what the regex
 * gives. `\s` is Py_UNICODE_ISSPACE and `\d` Py_UNICODE_ISDECIMAL, as for the re module
 * (SRE_UNI_IS_SPACE, SRE_UNI_IS_DIGIT); tests/filter checks every code point and compares the
 * output with the regexes on random text. */

#define AT(i) PyUnicode_READ(kind, data, (i))

static inline int
is_blank(Py_UCS4 c) /* [^\S\n] */
{
    return c != '\n' && Py_UNICODE_ISSPACE(c);
}

static inline int
is_decimal(Py_UCS4 c) /* \d */
{
    return c < 128 ? (c >= '0' && c <= '9') : Py_UNICODE_ISDECIMAL(c);
}

static inline int
is_ascii_letter(Py_UCS4 c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int
is_ascii_hex(Py_UCS4 c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* \d{1,9} then `sep` at i; the end, or -1 */
static Py_ssize_t
digits_then(int kind, const void *data, Py_ssize_t n, Py_ssize_t i, Py_UCS4 sep)
{
    int digits = 0;
    while (i < n && is_decimal(AT(i))) {
        if (++digits > 9)
            return -1;
        i++;
    }
    return (digits && i < n && AT(i) == sep) ? i + 1 : -1;
}

/* _GUTTER at i: [^\S\n]*\d{1,9} then bat's [^\S\n]*(?:[-+~_‾][^\S\n]*)?│ (first: its blanks may
 * begin with a tab), "→", a tab, "\\t", "^I", ":" or "-" (neither before two digits); its end, or -1 */
static Py_ssize_t
gutter_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t i)
{
    while (i < n && is_blank(AT(i)))
        i++;
    int digits = 0;
    while (i < n && digits < 9 && is_decimal(AT(i))) {
        i++;
        digits++;
    }
    if (!digits || i >= n)
        return -1;
    Py_ssize_t j = i; /* bat's gutter */
    while (j < n && is_blank(AT(j)))
        j++;
    if (j < n && (AT(j) == '-' || AT(j) == '+' || AT(j) == '~' || AT(j) == '_' || AT(j) == 0x203E))
        for (j++; j < n && is_blank(AT(j));)
            j++;
    if (j < n && AT(j) == 0x2502)
        return j + 1;
    Py_UCS4 c = AT(i);
    if (c == 0x2192 || c == '\t')
        return i + 1;
    if ((c == '\\' && i + 1 < n && AT(i + 1) == 't') ||
        (c == '^' && i + 1 < n && (AT(i + 1) == 'I' || AT(i + 1) == 'i')))
        return i + 2;
    if ((c == ':' || c == '-') && !(i + 2 < n && is_decimal(AT(i + 1)) && is_decimal(AT(i + 2))))
        return i + 1;
    return -1;
}

/* _PATH at i: [^\s:\\./]*[./](?:[^\s:\\-]|-(?!\d{1,9}-))*(?::\d{1,9}:(?:\d{1,9}:)?|-\d{1,9}-);
 * its end, or -1 */
static Py_ssize_t
path_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t i)
{
    Py_UCS4 c;
    while (i < n && (c = AT(i)) != ':' && c != '\\' && c != '.' && c != '/' &&
           !Py_UNICODE_ISSPACE(c))
        i++;
    if (!(i < n && (AT(i) == '.' || AT(i) == '/')))
        return -1;
    for (i++; i < n; i++) {
        c = AT(i);
        if (c == '\\' || Py_UNICODE_ISSPACE(c))
            return -1;
        Py_ssize_t end;
        if (c == ':') {
            if ((end = digits_then(kind, data, n, i + 1, ':')) < 0)
                return -1;
            Py_ssize_t column = digits_then(kind, data, n, end, ':');
            return column >= 0 ? column : end;
        }
        if (c == '-' && (end = digits_then(kind, data, n, i + 1, '-')) >= 0)
            return end;
    }
    return -1;
}

/* _PREFIX's alternative `which` (0 a gutter, 1 a path, 2 a diff's "+") at i; its end, or -1 */
static Py_ssize_t
prefix_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t i, int which)
{
    if (which == 0)
        return gutter_end(kind, data, n, i);
    if (which == 1)
        return path_end(kind, data, n, i);
    return (i < n && AT(i) == '+') ? i + 1 : -1;
}

/* _QUOTES[^\S\n]*_FENCE_OR_NUMBER at i; its end, or -1 */
static Py_ssize_t
fence_or_number_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t i)
{
    for (;;) { /* (?:[^\S\n]*>)* */
        Py_ssize_t j = i;
        while (j < n && is_blank(AT(j)))
            j++;
        if (j < n && AT(j) == '>')
            i = j + 1;
        else
            break;
    }
    while (i < n && is_blank(AT(i)))
        i++;
    if (i >= n)
        return -1;
    Py_UCS4 c = AT(i);
    if (c == '`' || c == '~') { /* (?:`{3,}|~{3,})(?:[^\n\\]|\\[^n\n]|\\(?=\n|\Z))* */
        Py_ssize_t j = i;
        while (j < n && AT(j) == c)
            j++;
        if (j - i < 3)
            return -1;
        while (j < n && AT(j) != '\n') {
            if (AT(j) == '\\' && j + 1 < n) {
                if (AT(j + 1) == 'n')
                    break; /* an escaped line break ends the line too */
                if (AT(j + 1) != '\n')
                    j++;
            }
            j++;
        }
        return j;
    }
    if (c == '-' || c == '*' || c == '+') { /* (?:[-*+][^\S\n]+)? */
        Py_ssize_t j = i + 1;
        if (!(j < n && is_blank(AT(j))))
            return -1;
        while (j < n && is_blank(AT(j)))
            j++;
        i = j;
    }
    int digits = 0; /* \d{1,9}[.)](?=\s|\Z) */
    while (i < n && digits < 9 && is_decimal(AT(i))) {
        i++;
        digits++;
    }
    if (!digits || i >= n || (AT(i) != '.' && AT(i) != ')'))
        return -1;
    i++;
    return (i == n || Py_UNICODE_ISSPACE(AT(i))) ? i : -1;
}

/* Whether a line that starts with c may hold a line rule other than a path: a gutter, a
 * diff's "+", a quote, a fence, a list item or a number each start with one of these */
static inline int
may_start_other_than_path(Py_UCS4 c)
{
    return c == '>' || c == '`' || c == '~' || c == '-' || c == '*' || c == '+' || is_blank(c) ||
           is_decimal(c);
}

/* _LINE_START after the line break before q; the end of the match, or -1 */
static Py_ssize_t
line_markup_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t q)
{
    Py_ssize_t prefixes[3], end;
    /* most lines are empty or start with a letter: nothing, or a path alone, to try */
    if (q >= n || AT(q) == '\n')
        return -1;
    if (!may_start_other_than_path(AT(q))) {
        Py_ssize_t path = path_end(kind, data, n, q);
        return path < 0 ? -1 : (end = fence_or_number_end(kind, data, n, path)) >= 0 ? end : path;
    }
    for (int which = 0; which < 3; which++) {
        prefixes[which] = prefix_end(kind, data, n, q, which);
        if (prefixes[which] >= 0 &&
            (end = fence_or_number_end(kind, data, n, prefixes[which])) >= 0)
            return end;
    }
    if ((end = fence_or_number_end(kind, data, n, q)) >= 0)
        return end;
    for (int which = 0; which < 3; which++)
        if (prefixes[which] >= 0)
            return prefixes[which];
    return -1;
}

/* _TAG at p (a "<"): </?[A-Za-z][A-Za-z0-9-]*(?:[ \t][^<>\n]*)?/?>; its end, or -1 */
static Py_ssize_t
tag_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t p)
{
    Py_ssize_t i = p + 1;
    if (i < n && AT(i) == '/')
        i++;
    if (!(i < n && is_ascii_letter(AT(i))))
        return -1;
    i++;
    while (i < n && (is_ascii_letter(AT(i)) || (AT(i) >= '0' && AT(i) <= '9') || AT(i) == '-'))
        i++;
    if (i < n && (AT(i) == ' ' || AT(i) == '\t')) {
        i++;
        while (i < n && AT(i) != '<' && AT(i) != '>' && AT(i) != '\n')
            i++;
    }
    if (i < n && AT(i) == '/')
        i++;
    return (i < n && AT(i) == '>') ? i + 1 : -1;
}

/* whether the text at i is the ASCII `word` */
static inline int
at_word(int kind, const void *data, Py_ssize_t n, Py_ssize_t i, const char *word)
{
    for (; *word; word++, i++)
        if (!(i < n && AT(i) == (Py_UCS4)(unsigned char)*word))
            return 0;
    return 1;
}

/* _ESCAPED_TAG at p (a "&"): &lt;/?[A-Za-z][A-Za-z0-9-]*(?:[ \t](?:[^<>\n&]|&(?!gt;))*)?/?&gt; */
static Py_ssize_t
escaped_tag_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t p)
{
    if (!at_word(kind, data, n, p, "&lt;"))
        return -1;
    Py_ssize_t i = p + 4;
    if (i < n && AT(i) == '/')
        i++;
    if (!(i < n && is_ascii_letter(AT(i))))
        return -1;
    i++;
    while (i < n && (is_ascii_letter(AT(i)) || (AT(i) >= '0' && AT(i) <= '9') || AT(i) == '-'))
        i++;
    if (i < n && (AT(i) == ' ' || AT(i) == '\t')) {
        i++;
        while (i < n && AT(i) != '<' && AT(i) != '>' && AT(i) != '\n' &&
               !(AT(i) == '&' && at_word(kind, data, n, i, "&gt;")))
            i++;
    }
    if (i < n && AT(i) == '/')
        i++;
    return at_word(kind, data, n, i, "&gt;") ? i + 4 : -1;
}

/* _ENTITY at p (a "&"): &(?:lt|gt|amp|quot|apos|nbsp|#\d{1,7}|#x[0-9a-fA-F]{1,6}); */
static Py_ssize_t
entity_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t p)
{
    static const char *const named[] = {"&lt;", "&gt;", "&amp;", "&quot;", "&apos;", "&nbsp;"};
    for (size_t w = 0; w < sizeof named / sizeof *named; w++)
        if (at_word(kind, data, n, p, named[w]))
            return p + (Py_ssize_t)strlen(named[w]);
    if (!(p + 1 < n && AT(p + 1) == '#'))
        return -1;
    Py_ssize_t i = p + 2;
    int hex = i < n && AT(i) == 'x', count = 0, most = hex ? 6 : 7;
    for (i += hex; i < n && (hex ? is_ascii_hex(AT(i)) : is_decimal(AT(i))); i++)
        if (++count > most)
            return -1;
    return (count && i < n && AT(i) == ';') ? i + 1 : -1;
}

/* _ESCAPE at p (a "\\"): \\(?:[\\"/bfnrt]|u[0-9a-fA-F]{4}) */
static Py_ssize_t
escape_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t p)
{
    if (p + 1 >= n)
        return -1;
    Py_UCS4 c = AT(p + 1);
    if (c == '\\' || c == '"' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' ||
        c == 't')
        return p + 2;
    if (c != 'u' || p + 5 >= n)
        return -1;
    for (Py_ssize_t i = p + 2; i < p + 6; i++)
        if (!is_ascii_hex(AT(i)))
            return -1;
    return p + 6;
}

/* The rules that start at p, a character that is not a line break, in the regex's order: the
 * line rules after an escaped line break, then the inline ones; the end of the match, or -1. */
static Py_ssize_t
inline_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t p)
{
    Py_ssize_t end;
    switch (AT(p)) {
    case '<':
        return tag_end(kind, data, n, p);
    case '&':
        return (end = escaped_tag_end(kind, data, n, p)) >= 0 ? end
                                                              : entity_end(kind, data, n, p);
    case '\\':
        if (p + 1 < n && AT(p + 1) == 'n' && (end = line_markup_end(kind, data, n, p + 2)) >= 0)
            return end;
        return escape_end(kind, data, n, p);
    case '^': /* _CARET: \^(?:[Ii]|[Mm](?=\$)) */
        if (p + 1 < n && (AT(p + 1) == 'I' || AT(p + 1) == 'i'))
            return p + 2;
        if (p + 2 < n && (AT(p + 1) == 'M' || AT(p + 1) == 'm') && AT(p + 2) == '$')
            return p + 2;
        return -1;
    default:
        return -1;
    }
}

static inline int
may_start_inline(Py_UCS4 c)
{
    return c == '<' || c == '&' || c == '\\' || c == '^';
}

/* The characters a rule may start at (a line break, or an inline rule's first character): one
 * test a character in the pass over text that holds none, which is most of it. */
static const unsigned char starts_a_rule[128] = {['\n'] = 1, ['<'] = 1, ['&'] = 1, ['\\'] = 1, ['^'] = 1};

/* The cut (cut_markup's) of a text, ASCII or normalised, in one pass: each stretch its markup
 * leaves is handed to keep(state, separator, from, to) with what the cut puts before it ("\n"
 * before the first and for a line match, " " for an inline one), and the scan goes on from
 * past(state, i) at each character i that starts no markup. strip_markup writes the stretches
 * out and steps a character at a time; text_shingles keeps nothing and hashes each word where
 * it starts, stepping past it (no word holds a character markup starts with, so the words
 * met are the words of the text cut). Inlined where the kind and the callbacks are
 * constants, so each caller has a scan of its own. -1 where a callback fails. */
typedef int (*Keep)(void *state, Py_UCS4 separator, Py_ssize_t from, Py_ssize_t to);
typedef Py_ssize_t (*Past)(void *state, Py_ssize_t i);

static inline __attribute__((always_inline)) int
cut_scan(int kind, const void *data, Py_ssize_t n, Keep keep, Past past, void *state)
{
    Py_ssize_t done = 0, i, end;
    Py_UCS4 separator = '\n', cut;
    if ((end = line_markup_end(kind, data, n, 0)) >= 0)
        done = end;
    i = done;
    while (i < n) {
        Py_UCS4 c = AT(i);
        if (c >= 128 || !starts_a_rule[c]) {
            if ((i = past(state, i)) < 0)
                return -1;
            continue;
        }
        if (c == '\n' && (end = line_markup_end(kind, data, n, i + 1)) >= 0)
            cut = '\n';
        else if (may_start_inline(c) && (end = inline_end(kind, data, n, i)) >= 0)
            cut = ' ';
        else {
            i++;
            continue;
        }
        if (keep(state, separator, done, i) < 0)
            return -1;
        separator = cut;
        done = i = end;
    }
    return keep(state, separator, done, n);
}

/* strip_markup's callbacks: the separator and the stretch written out, in the text's kind */
typedef struct {
    int kind;
    const char *text;
    char *out;
    Py_ssize_t len; /* characters written */
} Copy;

static inline int
keep_copy(void *state, Py_UCS4 separator, Py_ssize_t from, Py_ssize_t to)
{
    Copy *copy = state;
    PyUnicode_WRITE(copy->kind, copy->out, copy->len, separator);
    copy->len++;
    memcpy(copy->out + copy->len * copy->kind, copy->text + from * copy->kind,
           (size_t)((to - from) * copy->kind));
    copy->len += to - from;
    return 0;
}

static inline Py_ssize_t
past_character(void *state, Py_ssize_t i)
{
    return i + 1;
}

static PyObject *
strip_markup(PyObject *self, PyObject *text)
{
    if (!PyUnicode_Check(text))
        return PyErr_Format(PyExc_TypeError, "strip_markup: text must be str, not %.100s",
                            Py_TYPE(text)->tp_name);
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    /* a cut replaces at least one character with one, and puts one before the first line */
    Copy copy = {kind, data, PyMem_RawMalloc((n + 1) * kind), 0};
    if (copy.out == NULL)
        return PyErr_NoMemory();
    /* without the GIL: the scan reads the str (held by the caller) and writes `out` */
    Py_BEGIN_ALLOW_THREADS
    if (kind == PyUnicode_1BYTE_KIND)
        cut_scan(PyUnicode_1BYTE_KIND, data, n, keep_copy, past_character, &copy);
    else if (kind == PyUnicode_2BYTE_KIND)
        cut_scan(PyUnicode_2BYTE_KIND, data, n, keep_copy, past_character, &copy);
    else
        cut_scan(PyUnicode_4BYTE_KIND, data, n, keep_copy, past_character, &copy);
    Py_END_ALLOW_THREADS
    PyObject *stripped = PyUnicode_FromKindAndData(kind, copy.out, copy.len);
    PyMem_RawFree(copy.out);
    return stripped;
}

#undef AT

/* -- the index ------------------------------------------------------------------------------ */

/* A contiguous array of `itemsize`-byte items from Python (a numpy array), or -1. */
static int
array_view(PyObject *array, Py_buffer *view, Py_ssize_t itemsize, const char *name)
{
    if (PyObject_GetBuffer(array, view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: items of %zd bytes expected, not %zd", name, itemsize,
                     view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* The first of keys[lo, hi) (sorted) not below `key`, or hi. */
static inline uint32_t
first_not_below(const uint32_t *keys, uint32_t lo, uint32_t hi, uint32_t key)
{
    while (hi - lo > 16) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo < hi && keys[lo] < key)
        lo++;
    return lo;
}

/* Record shingles probed a block at a time, in stages, each stage fetching the cache lines of
 * the probe AHEAD places on: the misses of a block's probes overlap rather than queue, which
 * is what keeps a lookup's cost flat once the index outgrows the cache. A bitmap probe takes a
 * few nanoseconds and a miss a hundred: 32 ahead hides it where 8 did not (the ASCII half's
 * lookup at 10^5 artifacts 12.0 ms at 8, 8.5 at 32, 8.1 at 64; 4.3-4.6 at 10^3 for all). */
#define LOOKUP_BLOCK 256
#define LOOKUP_AHEAD 32

/* lookup(shingles, keys, postings, directory, bitmap, shift, bitmap_mask, max_run)
 *     -> (uint32s, n)
 *
 * filter/segments.py's Segment.ranges over its own arrays (keys: the low 32 bits of each
 * entry's hash, sorted within its directory slot; postings: an (artifact, position) pair of
 * uint32 an entry): a record shingle's entries are those of its slot with its low 32 bits. Six uint32 arrays, one after another in one
 * bytearray: record positions, artifact numbers and artifact positions (n each), then for the
 * record shingles left out, those whose hash has more than max_run entries, their positions,
 * their first entries and their entry counts (m each: the rest of the bytearray in three), so
 * that their entries can be read later without probing the index again. max_run < 0 leaves
 * nothing out. */
static PyObject *
lookup(PyObject *self, PyObject *args)
{
    PyObject *objects[5];
    unsigned long long shift, mask;
    long long max_run;
    if (!PyArg_ParseTuple(args, "OOOOOKKL:lookup", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &shift, &mask, &max_run))
        return NULL;
    static const Py_ssize_t sizes[5] = {8, 4, 4, 4, 1};
    static const char *names[5] = {"shingles", "keys", "postings", "directory", "bitmap"};
    Py_buffer views[5];
    int held = 0;
    PyObject *result = NULL;
    Growable found = {0}, numbers = {0}, positions = {0}, left_out = {0}, left_first = {0},
             left_count = {0};
    for (; held < 5; held++)
        if (array_view(objects[held], &views[held], sizes[held], names[held]) < 0)
            goto done;
    if (shift < 1 || shift > 63) {
        PyErr_SetString(PyExc_ValueError, "lookup: shift must be 1..63");
        goto done;
    }
    const uint64_t *shingles = views[0].buf;
    const uint32_t *keys = views[1].buf, *postings = views[2].buf, *directory = views[3].buf;
    const unsigned char *bitmap = views[4].buf;
    Py_ssize_t n = views[0].len / 8, n_slots = views[3].len / 4 - 1, n_entries = views[1].len / 4;
    if ((Py_ssize_t)((mask + 1) / 8) > views[4].len || views[2].len / 8 != n_entries ||
        n_entries > UINT32_MAX || n_slots < 1 || (uint64_t)n_slots <= (UINT64_MAX >> shift)) {
        PyErr_SetString(PyExc_ValueError, "lookup: the index arrays do not fit together");
        goto done;
    }
    uint32_t passed[LOOKUP_BLOCK], first[LOOKUP_BLOCK], last[LOOKUP_BLOCK];
    int out_of_memory = 0;
    /* Without the GIL: the loop reads the arrays (held by their buffers) and grows C arrays
     * with the raw allocator, so a server's other threads check meanwhile. */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t base = 0; base < n; base += LOOKUP_BLOCK) {
        const uint64_t *block = shingles + base;
        int size = n - base < LOOKUP_BLOCK ? (int)(n - base) : LOOKUP_BLOCK, n_passed = 0;
        /* the bitmap turns most record shingles away */
        for (int i = 0; i < size; i++) {
            if (i + LOOKUP_AHEAD < size)
                __builtin_prefetch(bitmap + ((block[i + LOOKUP_AHEAD] & mask) >> 3));
            uint64_t bit = block[i] & mask;
            passed[n_passed] = (uint32_t)i;
            n_passed += (bitmap[bit >> 3] >> (bit & 7)) & 1;
        }
        /* the directory slot of each that passed: where its entries lie */
        for (int p = 0; p < n_passed; p++) {
            if (p + LOOKUP_AHEAD < n_passed)
                __builtin_prefetch(directory + (block[passed[p + LOOKUP_AHEAD]] >> shift));
            uint64_t slot = block[passed[p]] >> shift;
            first[p] = directory[slot];
            last[p] = directory[slot + 1];
            if (first[p] < last[p]) {
                __builtin_prefetch(keys + first[p]);
                __builtin_prefetch(keys + last[p] - 1);
            }
        }
        /* the entries of each one's hash, if any: [first, last) becomes theirs */
        for (int p = 0; p < n_passed; p++) {
            uint32_t key = (uint32_t)block[passed[p]];
            uint32_t from = first_not_below(keys, first[p], last[p], key), to = from;
            if (from < last[p] && keys[from] == key) {
                to = first_not_below(keys, from + 1, last[p], key + 1);
                if (key == UINT32_MAX) /* key + 1 wrapped: the rest of the slot is equal */
                    to = last[p];
                __builtin_prefetch(postings + 2 * (size_t)from);
            }
            first[p] = from;
            last[p] = to;
        }
        for (int p = 0; p < n_passed; p++) {
            uint32_t query = (uint32_t)(base + passed[p]);
            if (first[p] == last[p])
                continue;
            if (max_run >= 0 && (long long)(last[p] - first[p]) > max_run) {
                if (raw_u32s_push(&left_out, query) < 0 ||
                    raw_u32s_push(&left_first, first[p]) < 0 ||
                    raw_u32s_push(&left_count, last[p] - first[p]) < 0) {
                    out_of_memory = 1;
                    goto unlocked;
                }
                continue;
            }
            for (uint32_t e = first[p]; e < last[p]; e++)
                if (raw_u32s_push(&found, query) < 0 ||
                    raw_u32s_push(&numbers, postings[2 * e]) < 0 ||
                    raw_u32s_push(&positions, postings[2 * e + 1]) < 0) {
                    out_of_memory = 1;
                    goto unlocked;
                }
        }
    }
unlocked:
    Py_END_ALLOW_THREADS
    if (out_of_memory) {
        PyErr_NoMemory();
        goto done;
    }
    /* one bytearray (one numpy array for the caller, sliced four ways) */
    Py_ssize_t size = 3 * (found.len + left_out.len) * sizeof(uint32_t);
    PyObject *arrays = PyByteArray_FromStringAndSize(NULL, size);
    if (arrays != NULL) {
        char *out = PyByteArray_AS_STRING(arrays);
        const Growable *parts[6] = {&found, &numbers, &positions, &left_out, &left_first,
                                    &left_count};
        for (int p = 0; p < 6; p++) {
            memcpy(out, parts[p]->data, parts[p]->len * sizeof(uint32_t));
            out += parts[p]->len * sizeof(uint32_t);
        }
        result = Py_BuildValue("(Nn)", arrays, found.len);
    }
done:
    while (held-- > 0)
        PyBuffer_Release(&views[held]);
    PyMem_RawFree(found.data);
    PyMem_RawFree(numbers.data);
    PyMem_RawFree(positions.data);
    PyMem_RawFree(left_out.data);
    PyMem_RawFree(left_first.data);
    PyMem_RawFree(left_count.data);
    return result;
}

/* -- passages ---------------------------------------------------------------------------- */

/* An int array from Python (a numpy array, contiguous, of any integer type numpy makes) as
 * int64: read in place when it holds int64 already (the per-artifact arrays: copying those
 * would cost each call time in proportion to the number of artifacts), else copied. */
typedef struct {
    const int64_t *values;
    Py_ssize_t n;
    int64_t *copy;  /* owned, or NULL when values points into view */
    Py_buffer view; /* held while read in place */
    int viewing;
} Int64s;

static void
int64s_close(Int64s *a)
{
    if (a->viewing)
        PyBuffer_Release(&a->view);
    PyMem_Free(a->copy);
    *a = (Int64s){0};
}

static int
int64s_open(PyObject *array, Int64s *a, const char *name)
{
    *a = (Int64s){0};
    Py_buffer *view = &a->view;
    if (PyObject_GetBuffer(array, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    const char *format = view->format ? view->format : "B";
    if (*format == '<' || *format == '=' || *format == '@')
        format++;
    Py_ssize_t n = view->itemsize ? view->len / view->itemsize : 0;
    char type = format[1] == '\0' ? format[0] : '?';
    a->n = n;
    if ((type == 'l' || type == 'q') && view->itemsize == 8) {
        a->values = view->buf;
        a->viewing = 1;
        return 0;
    }
    int64_t *values = PyMem_Malloc((n ? n : 1) * sizeof(int64_t));
    if (values == NULL) {
        PyBuffer_Release(view);
        PyErr_NoMemory();
        return -1;
    }
    int ok = 1;
#define READ_AS(CTYPE)                                                                        \
    for (Py_ssize_t i = 0; i < n; i++)                                                        \
        values[i] = (int64_t)((const CTYPE *)view->buf)[i];
    if ((type == 'i' || type == 'l' || type == 'q') && view->itemsize == 4) {
        READ_AS(int32_t)
    } else if ((type == 'I' || type == 'L' || type == 'Q') && view->itemsize == 4) {
        READ_AS(uint32_t)
    } else if ((type == 'L' || type == 'Q') && view->itemsize == 8) {
        READ_AS(uint64_t)
    } else {
        ok = 0;
    }
#undef READ_AS
    PyBuffer_Release(view);
    if (!ok) {
        PyMem_Free(values);
        PyErr_Format(PyExc_TypeError, "%s must hold 32- or 64-bit integers", name);
        return -1;
    }
    a->values = a->copy = values;
    return 0;
}

typedef struct {
    int64_t i_first, i_last, j_first, j_last, count;
    Py_ssize_t seq; /* order before a sort: what Python's stable sorts keep among equals */
} Run;

typedef struct {
    int64_t diagonal, i, j;
} Anchor;

typedef struct {
    int64_t k, max_gap, min_anchors, max_bridge, max_runs;
} Rules;

static int
by_diagonal_then_record(const void *a, const void *b)
{
    const Anchor *x = a, *y = b;
    if (x->diagonal != y->diagonal)
        return x->diagonal < y->diagonal ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* What align_one works in, for pairs of up to `room` anchors: allocated once for a call,
 * not once a pair (most pairs hold a few dozen anchors). */
typedef struct {
    Run *runs, *chains, *kept, *scratch;
    Py_ssize_t *active;
    Py_ssize_t *starts; /* the counting sort's, grown as a pair needs */
    Py_ssize_t starts_room;
    /* the run open on each diagonal (runs_in_record_order): open addressing, an entry in use
     * for the pair whose stamp it holds, so that no pair clears it */
    int64_t *diagonals;
    Py_ssize_t *run_of;
    uint32_t *stamps;
    uint32_t stamp;
    int table_bits;
} Workspace;

static void
workspace_free(Workspace *w)
{
    PyMem_RawFree(w->runs);
    PyMem_RawFree(w->chains);
    PyMem_RawFree(w->kept);
    PyMem_RawFree(w->scratch);
    PyMem_RawFree(w->active);
    PyMem_RawFree(w->starts);
    PyMem_RawFree(w->diagonals);
    PyMem_RawFree(w->run_of);
    PyMem_RawFree(w->stamps);
    *w = (Workspace){0};
}

/* room for pairs of n anchors; -1 without an exception set (no GIL needed) */
static int
workspace_open(Workspace *w, Py_ssize_t n)
{
    n = n ? n : 1;
    *w = (Workspace){0};
    w->runs = PyMem_RawMalloc(n * sizeof(Run));
    w->chains = PyMem_RawMalloc(n * sizeof(Run));
    w->kept = PyMem_RawMalloc(n * sizeof(Run));
    w->scratch = PyMem_RawMalloc(n * sizeof(Run)); /* for the sorts, and the anchors' */
    w->active = PyMem_RawMalloc(n * sizeof(Py_ssize_t));
    w->table_bits = 3;
    while (((Py_ssize_t)1 << w->table_bits) < 2 * n)
        w->table_bits++;
    w->diagonals = PyMem_RawMalloc(((Py_ssize_t)1 << w->table_bits) * sizeof(int64_t));
    w->run_of = PyMem_RawMalloc(((Py_ssize_t)1 << w->table_bits) * sizeof(Py_ssize_t));
    w->stamps = PyMem_RawCalloc((Py_ssize_t)1 << w->table_bits, sizeof(uint32_t));
    if (!w->runs || !w->chains || !w->kept || !w->scratch || !w->active || !w->diagonals ||
        !w->run_of || !w->stamps) {
        workspace_free(w);
        return -1;
    }
    return 0;
}

/* The anchors by (diagonal, record position): often so already (a copy on one diagonal); when
 * they come in record order, as the lookups give them, a counting sort on the diagonal.
 * -1 when memory runs out (no exception set). */
static int
sort_anchors(Anchor *anchors, Py_ssize_t n, Workspace *work)
{
    int sorted = 1, record_order = 1;
    int64_t low = anchors[0].diagonal, high = low;
    for (Py_ssize_t a = 1; a < n; a++) {
        sorted &= by_diagonal_then_record(&anchors[a - 1], &anchors[a]) <= 0;
        record_order &= anchors[a - 1].i <= anchors[a].i;
        low = anchors[a].diagonal < low ? anchors[a].diagonal : low;
        high = anchors[a].diagonal > high ? anchors[a].diagonal : high;
    }
    if (sorted)
        return 0;
    if (!record_order || high - low > 4 * (int64_t)n + 1024) {
        qsort(anchors, n, sizeof(Anchor), by_diagonal_then_record);
        return 0;
    }
    Py_ssize_t span = (Py_ssize_t)(high - low) + 1;
    if (span + 1 > work->starts_room) {
        PyMem_RawFree(work->starts);
        work->starts_room = 2 * (span + 1);
        if (!(work->starts = PyMem_RawMalloc(work->starts_room * sizeof(Py_ssize_t)))) {
            work->starts_room = 0;
            return -1;
        }
    }
    Py_ssize_t *starts = work->starts;
    Anchor *copy = (Anchor *)work->scratch; /* a Run is larger than an Anchor */
    memset(starts, 0, (span + 1) * sizeof(Py_ssize_t));
    for (Py_ssize_t a = 0; a < n; a++)
        starts[anchors[a].diagonal - low + 1]++;
    for (Py_ssize_t d = 1; d <= span; d++)
        starts[d] += starts[d - 1];
    for (Py_ssize_t a = 0; a < n; a++)
        copy[starts[anchors[a].diagonal - low]++] = anchors[a];
    memcpy(anchors, copy, n * sizeof(Anchor));
    return 0;
}

static int
by_count_desc(const void *a, const void *b)
{
    const Run *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
by_seq(const void *a, const void *b)
{
    const Run *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
by_record_then_count_desc(const void *a, const void *b)
{
    const Run *x = a, *y = b;
    if (x->i_first != y->i_first)
        return x->i_first < y->i_first ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
by_record(const void *a, const void *b)
{
    const Run *x = a, *y = b;
    if (x->i_first != y->i_first)
        return x->i_first < y->i_first ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
by_length_then_count_desc(const void *a, const void *b)
{
    const Run *x = a, *y = b;
    int64_t length_x = x->i_last - x->i_first, length_y = y->i_last - y->i_first;
    if (length_x != length_y)
        return length_x > length_y ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* runs[0:n] in the order `cmp` gives, as qsort would put them (every order here is total: seq
 * breaks ties), with the comparisons inline where it is called with a constant `cmp`: sorted
 * stretches of 16 by insertion, then merged, through `scratch` (room for n runs). */
static inline __attribute__((always_inline)) void
sort_runs(Run *runs, Py_ssize_t n, Run *scratch, int (*cmp)(const void *, const void *))
{
    const Py_ssize_t stretch = 16;
    for (Py_ssize_t lo = 0; lo < n; lo += stretch) {
        Py_ssize_t hi = lo + stretch < n ? lo + stretch : n;
        for (Py_ssize_t i = lo + 1; i < hi; i++) {
            Run run = runs[i];
            Py_ssize_t j = i;
            for (; j > lo && cmp(&runs[j - 1], &run) > 0; j--)
                runs[j] = runs[j - 1];
            runs[j] = run;
        }
    }
    Run *from = runs, *into = scratch;
    for (Py_ssize_t width = stretch; width < n; width *= 2) {
        for (Py_ssize_t lo = 0; lo < n; lo += 2 * width) {
            Py_ssize_t mid = lo + width < n ? lo + width : n;
            Py_ssize_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            Py_ssize_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                into[k++] = cmp(&from[j], &from[i]) < 0 ? from[j++] : from[i++];
            while (i < mid)
                into[k++] = from[i++];
            while (j < hi)
                into[k++] = from[j++];
        }
        Run *swap = from;
        from = into;
        into = swap;
    }
    if (from != runs)
        memcpy(runs, from, n * sizeof(Run));
}

static void
renumber(Run *runs, Py_ssize_t n)
{
    for (Py_ssize_t r = 0; r < n; r++)
        runs[r].seq = r;
}

/* _runs and the first sort of _chain in one pass, for anchors in record order (as a lookup
 * gives them: by i, then j): each anchor extends the run open on its diagonal, or opens one
 * there when none is open or the record steps over max_gap. The runs come out by their first
 * record position, then diagonal: the order _chain wants once equal positions are put longest
 * first, which is what sorting by (diagonal, i) then by (i_first, -count) gives, without
 * either sort. Returns how many runs are in work->runs, or -1 when the anchors are not in
 * record order or make more than max_runs runs (the caller takes the sorting way). */
static Py_ssize_t
runs_in_record_order(const Anchor *anchors, Py_ssize_t n, const Rules *rules, Workspace *work)
{
    Run *runs = work->runs;
    if (++work->stamp == 0) { /* every 2^32 pairs: the stamps start again */
        memset(work->stamps, 0, ((Py_ssize_t)1 << work->table_bits) * sizeof(uint32_t));
        work->stamp = 1;
    }
    const uint32_t stamp = work->stamp;
    const Py_ssize_t mask = ((Py_ssize_t)1 << work->table_bits) - 1;
    Py_ssize_t n_runs = 0;
    for (Py_ssize_t a = 0; a < n; a++) {
        const Anchor *anchor = &anchors[a];
        if (a && (anchor->i < anchor[-1].i ||
                  (anchor->i == anchor[-1].i && anchor->j < anchor[-1].j)))
            return -1; /* not in record order */
        Py_ssize_t t =
            (Py_ssize_t)(((uint64_t)anchor->diagonal * MULTIPLIER) >> (64 - work->table_bits));
        while (work->stamps[t] == stamp && work->diagonals[t] != anchor->diagonal)
            t = (t + 1) & mask;
        Run *run;
        if (work->stamps[t] == stamp &&
            anchor->i - runs[work->run_of[t]].i_last <= rules->max_gap) {
            run = &runs[work->run_of[t]];
        } else {
            if (n_runs == rules->max_runs)
                return -1;
            work->stamps[t] = stamp;
            work->diagonals[t] = anchor->diagonal;
            work->run_of[t] = n_runs;
            runs[n_runs] = (Run){anchor->i, anchor->i, anchor->j, anchor->j, 0, n_runs};
            run = &runs[n_runs++];
        }
        run->i_last = anchor->i;
        run->j_last = anchor->j;
        run->count++;
    }
    /* runs of one first position longest first, equals in diagonal order (insertion: there
     * are seldom more than a few) */
    for (Py_ssize_t lo = 0, hi; lo < n_runs; lo = hi) {
        for (hi = lo + 1; hi < n_runs && runs[hi].i_first == runs[lo].i_first; hi++)
            ;
        for (Py_ssize_t r = lo + 1; r < hi; r++) {
            Run run = runs[r];
            Py_ssize_t at = r;
            for (; at > lo && runs[at - 1].count < run.count; at--)
                runs[at] = runs[at - 1];
            runs[at] = run;
        }
    }
    return n_runs;
}

/* filter/align.py's align() for one pair: the anchors (i, j) in `anchors` (n of them, which it
 * sorts), the passages pushed onto `out` as five int64 each (record_start, record_end,
 * artifact_start, artifact_end, shared), in record order. Each step mirrors the function of
 * align.py named beside it. Python objects are never touched: callers run it without the GIL.
 * -1 when memory runs out (no exception set). */
static int
align_one(Anchor *anchors, Py_ssize_t n, const Rules *rules, Workspace *work, Growable *out)
{
    if (n < rules->min_anchors)
        return 0;
    Run *runs = work->runs, *chains = work->chains, *kept = work->kept, *scratch = work->scratch;
    Py_ssize_t *active = work->active;
    Py_ssize_t n_runs = runs_in_record_order(anchors, n, rules, work);
    if (n_runs < 0) {
        /* _runs: cut along each diagonal where it changes or the record steps over max_gap */
        if (sort_anchors(anchors, n, work) < 0)
            return -1;
        n_runs = 0;
        for (Py_ssize_t a = 0; a < n; a++) {
            if (a == 0 || anchors[a].diagonal != anchors[a - 1].diagonal ||
                anchors[a].i - anchors[a - 1].i > rules->max_gap) {
                runs[n_runs] =
                    (Run){anchors[a].i, anchors[a].i, anchors[a].j, anchors[a].j, 0, n_runs};
                n_runs++;
            }
            Run *run = &runs[n_runs - 1];
            run->i_last = anchors[a].i;
            run->j_last = anchors[a].j;
            run->count++;
        }
        if (n_runs > rules->max_runs) {
            /* the longest max_runs, the first of equals, kept in their order */
            sort_runs(runs, n_runs, scratch, by_count_desc);
            n_runs = rules->max_runs;
            sort_runs(runs, n_runs, scratch, by_seq);
            renumber(runs, n_runs);
        }
        sort_runs(runs, n_runs, scratch, by_record_then_count_desc);
    }
    /* _chain: runs in record order join the nearest chain they follow in both texts */
    Py_ssize_t n_chains = 0, n_active = 0;
    for (Py_ssize_t r = 0; r < n_runs; r++) {
        const Run *run = &runs[r];
        Py_ssize_t still = 0, best = -1;
        int64_t best_step = 0;
        for (Py_ssize_t a = 0; a < n_active; a++) {
            Run *chain = &chains[active[a]];
            if (chain->i_last < run->i_first - rules->max_gap)
                continue;
            active[still++] = active[a];
            int64_t step_i = run->i_first - chain->i_last, step_j = run->j_first - chain->j_last;
            if (0 < step_i && 0 < step_j && step_j <= rules->max_gap &&
                (best < 0 || step_i + step_j < best_step)) {
                best = active[a];
                best_step = step_i + step_j;
            }
        }
        n_active = still;
        if (best < 0) {
            chains[n_chains] = *run;
            chains[n_chains].seq = n_chains;
            active[n_active++] = n_chains++;
        } else {
            chains[best].i_last = run->i_last;
            chains[best].j_last = run->j_last;
            chains[best].count += run->count;
        }
    }
    /* chains of min_anchors or more, then _bridge: join those that follow within max_bridge */
    Py_ssize_t n_long = 0;
    for (Py_ssize_t c = 0; c < n_chains; c++)
        if (chains[c].count >= rules->min_anchors)
            chains[n_long++] = chains[c];
    renumber(chains, n_long);
    sort_runs(chains, n_long, scratch, by_record);
    Run *joined = runs; /* the runs are done with */
    Py_ssize_t n_joined = 0;
    for (Py_ssize_t c = 0; c < n_long; c++) {
        const Run *chain = &chains[c];
        int merged = 0;
        for (Py_ssize_t e = n_joined - 1; e >= 0 && e >= n_joined - 4; e--) {
            Run *earlier = &joined[e];
            int64_t step_i = chain->i_first - earlier->i_last;
            int64_t step_j = chain->j_first - earlier->j_last;
            if (0 < step_i && step_i <= rules->max_bridge && 0 < step_j &&
                step_j <= rules->max_bridge) {
                earlier->i_last = chain->i_last;
                earlier->j_last = chain->j_last;
                earlier->count += chain->count;
                merged = 1;
                break;
            }
        }
        if (!merged)
            joined[n_joined++] = *chain;
    }
    /* align: longest first, leaving out a passage mostly inside one kept already */
    renumber(joined, n_joined);
    sort_runs(joined, n_joined, scratch, by_length_then_count_desc);
    Py_ssize_t n_kept = 0;
    for (Py_ssize_t c = 0; c < n_joined; c++) {
        int64_t start = joined[c].i_first, end = joined[c].i_last + rules->k, inside = 0;
        for (Py_ssize_t o = 0; o < n_kept; o++) {
            int64_t lo = start > kept[o].i_first ? start : kept[o].i_first;
            int64_t hi = end < kept[o].i_last ? end : kept[o].i_last;
            if (hi > lo)
                inside += hi - lo;
        }
        if (inside * 2 > end - start)
            continue;
        /* kept holds [record_start, record_end) in i_first, i_last, the artifact's likewise */
        kept[n_kept] = (Run){start, end, joined[c].j_first, joined[c].j_last + rules->k,
                             joined[c].count, n_kept};
        n_kept++;
    }
    sort_runs(kept, n_kept, scratch, by_record);
    for (Py_ssize_t c = 0; c < n_kept; c++)
        if (raw_u64s_push(out, (uint64_t)kept[c].i_first) < 0 ||
            raw_u64s_push(out, (uint64_t)kept[c].i_last) < 0 ||
            raw_u64s_push(out, (uint64_t)kept[c].j_first) < 0 ||
            raw_u64s_push(out, (uint64_t)kept[c].j_last) < 0 ||
            raw_u64s_push(out, (uint64_t)kept[c].count) < 0)
            return -1;
    return 0;
}

typedef struct {
    int64_t number;
    Py_ssize_t at; /* in the numbers asked for */
} Wanted;

static int
by_number(const void *a, const void *b)
{
    const Wanted *x = a, *y = b;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* align_many(record_pos, artifact_no, artifact_pos, numbers, k, max_gap, min_anchors,
 *            max_bridge, max_runs) -> (counts, passages), two bytearrays of int64
 *
 * Anchors against several artifacts: for each artifact number in `numbers`, the passages
 * align() finds in the anchors whose artifact_no is that number. counts[w]: how many passages
 * numbers[w] has; passages: five int64 a passage (align_one's), those of numbers[0] first.
 * No Python object a passage: the measures are taken from the arrays (filter/measure.py),
 * and the whole loop runs without the GIL. */
static PyObject *
align_many(PyObject *self, PyObject *args)
{
    PyObject *record_obj, *number_obj, *artifact_obj, *numbers;
    Rules rules;
    if (!PyArg_ParseTuple(args, "OOOOLLLLL:align_many", &record_obj, &number_obj, &artifact_obj,
                          &numbers, &rules.k, &rules.max_gap, &rules.min_anchors,
                          &rules.max_bridge, &rules.max_runs))
        return NULL;
    if (rules.max_runs < 1 || rules.min_anchors < 1)
        return PyErr_Format(PyExc_ValueError, "align_many: max_runs and min_anchors must be >= 1");
    Py_ssize_t n = 0, n_wanted = 0;
    PyObject *result = NULL, *seq = NULL;
    Int64s columns[3] = {{0}};
    Py_ssize_t *starts = NULL, *slot_of = NULL, *first_of = NULL, *count_of = NULL;
    Wanted *wanted = NULL;
    Anchor *anchors = NULL;
    int64_t *table_number = NULL;
    Py_ssize_t *table_slot = NULL;
    Growable found = {0};
    Workspace work = {0};
    if (int64s_open(record_obj, &columns[0], "record_pos") < 0 ||
        int64s_open(number_obj, &columns[1], "artifact_no") < 0 ||
        int64s_open(artifact_obj, &columns[2], "artifact_pos") < 0)
        goto done;
    const int64_t *record_pos = columns[0].values, *artifact_no = columns[1].values,
                  *artifact_pos = columns[2].values;
    n = columns[0].n;
    if (columns[1].n != n || columns[2].n != n) {
        PyErr_SetString(PyExc_ValueError, "align_many: the three anchor arrays differ in length");
        goto done;
    }
    if (!(seq = PySequence_Fast(numbers, "align_many: numbers must be a sequence of int")))
        goto done;
    n_wanted = PySequence_Fast_GET_SIZE(seq);
    wanted = PyMem_Malloc((n_wanted ? n_wanted : 1) * sizeof(Wanted));
    starts = PyMem_Calloc(n_wanted + 1, sizeof(Py_ssize_t));
    first_of = PyMem_Malloc((n_wanted ? n_wanted : 1) * sizeof(Py_ssize_t));
    count_of = PyMem_Malloc((n_wanted ? n_wanted : 1) * sizeof(Py_ssize_t));
    slot_of = PyMem_Malloc((n ? n : 1) * sizeof(Py_ssize_t));
    anchors = PyMem_Malloc((n ? n : 1) * sizeof(Anchor));
    if (!wanted || !starts || !first_of || !count_of || !slot_of || !anchors) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t w = 0; w < n_wanted; w++) {
        wanted[w] = (Wanted){PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, w)), w};
        if (wanted[w].number == -1 && PyErr_Occurred())
            goto done;
    }
    qsort(wanted, n_wanted, sizeof(Wanted), by_number);
    /* each anchor to the first number asked for that is its artifact's (a number asked for
     * twice gets its passages twice: the later ones are copied below). Found in a hash table
     * of the numbers asked for, open addressing at most a quarter full: a batch's anchors are
     * mostly of pairs not asked for, and a binary search each grew with the pairs. */
    int bits = 3;
    while (((Py_ssize_t)1 << bits) < 4 * n_wanted)
        bits++;
    const Py_ssize_t mask = ((Py_ssize_t)1 << bits) - 1;
    table_number = PyMem_Malloc((mask + 1) * sizeof(int64_t));
    table_slot = PyMem_Malloc((mask + 1) * sizeof(Py_ssize_t));
    if (!table_number || !table_slot) {
        PyErr_NoMemory();
        goto done;
    }
    int out_of_memory = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t <= mask; t++)
        table_slot[t] = -1;
    for (Py_ssize_t w = 0; w < n_wanted; w++) {
        if (w && wanted[w].number == wanted[w - 1].number)
            continue; /* the first of equal numbers: what a binary search finds */
        Py_ssize_t t = (Py_ssize_t)(((uint64_t)wanted[w].number * MULTIPLIER) >> (64 - bits));
        while (table_slot[t] >= 0)
            t = (t + 1) & mask;
        table_number[t] = wanted[w].number;
        table_slot[t] = w;
    }
    for (Py_ssize_t a = 0; a < n; a++) {
        Py_ssize_t t = (Py_ssize_t)(((uint64_t)artifact_no[a] * MULTIPLIER) >> (64 - bits));
        while (table_slot[t] >= 0 && table_number[t] != artifact_no[a])
            t = (t + 1) & mask;
        slot_of[a] = table_slot[t];
        if (slot_of[a] >= 0)
            starts[slot_of[a] + 1]++;
    }
    Py_ssize_t most = 0;
    for (Py_ssize_t w = 1; w <= n_wanted; w++) {
        most = starts[w] > most ? starts[w] : most;
        starts[w] += starts[w - 1];
    }
    for (Py_ssize_t a = 0; a < n; a++) /* stable: each artifact's anchors in their order */
        if (slot_of[a] >= 0)
            anchors[starts[slot_of[a]]++] =
                (Anchor){artifact_pos[a] - record_pos[a], record_pos[a], artifact_pos[a]};
    /* starts[w] is now where slot w's anchors end */
    if (workspace_open(&work, most) < 0) {
        out_of_memory = 1;
        goto unlocked;
    }
    for (Py_ssize_t w = 0; w < n_wanted; w++) {
        Py_ssize_t first = w ? starts[w - 1] : 0, at = wanted[w].at;
        if (w && wanted[w].number == wanted[w - 1].number) {
            first_of[at] = first_of[wanted[w - 1].at];
            count_of[at] = count_of[wanted[w - 1].at];
            continue;
        }
        first_of[at] = found.len / 5;
        if (align_one(anchors + first, starts[w] - first, &rules, &work, &found) < 0) {
            out_of_memory = 1;
            goto unlocked;
        }
        count_of[at] = found.len / 5 - first_of[at];
    }
unlocked:
    Py_END_ALLOW_THREADS
    if (out_of_memory) {
        PyErr_NoMemory();
        goto done;
    }
    /* the passages in the order the numbers were asked for */
    Py_ssize_t total = 0;
    for (Py_ssize_t w = 0; w < n_wanted; w++)
        total += count_of[w];
    PyObject *counts = PyByteArray_FromStringAndSize(NULL, n_wanted * sizeof(int64_t));
    PyObject *passages = PyByteArray_FromStringAndSize(NULL, 5 * total * sizeof(int64_t));
    if (counts == NULL || passages == NULL) {
        Py_XDECREF(counts);
        Py_XDECREF(passages);
        goto done;
    }
    int64_t *count_out = (int64_t *)PyByteArray_AS_STRING(counts);
    uint64_t *passage_out = (uint64_t *)PyByteArray_AS_STRING(passages);
    const uint64_t *from = found.data;
    for (Py_ssize_t w = 0; w < n_wanted; w++) {
        count_out[w] = count_of[w];
        memcpy(passage_out, from + 5 * first_of[w], 5 * count_of[w] * sizeof(uint64_t));
        passage_out += 5 * count_of[w];
    }
    result = Py_BuildValue("(NN)", counts, passages);
done:
    Py_XDECREF(seq);
    for (int c = 0; c < 3; c++)
        int64s_close(&columns[c]);
    PyMem_Free(wanted);
    PyMem_Free(starts);
    PyMem_Free(first_of);
    PyMem_Free(count_of);
    PyMem_Free(slot_of);
    PyMem_Free(anchors);
    PyMem_Free(table_number);
    PyMem_Free(table_slot);
    PyMem_RawFree(found.data);
    workspace_free(&work);
    return result;
}

/* covered_by_group(group, start, end, n_groups) -> bytearray of int64
 *
 * filter/measure.py's covered_by_group: how many positions the union of each group's
 * [start, end) intervals holds, the intervals in any order. A batch's verdicts take five such
 * unions (each match's record and artifact spans, each record's by kind, across kinds, of its
 * reported matches); a handful of C loops where numpy's sorts and scans were dozens of calls,
 * which a one-record check paid more for than for its alignment. */
typedef struct {
    int64_t start, end;
} Span;

static int
by_start(const void *a, const void *b)
{
    const Span *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

static PyObject *
covered_by_group(PyObject *self, PyObject *args)
{
    PyObject *objects[3];
    Py_ssize_t n_groups;
    if (!PyArg_ParseTuple(args, "OOOn:covered_by_group", &objects[0], &objects[1], &objects[2],
                          &n_groups))
        return NULL;
    static const char *names[3] = {"group", "start", "end"};
    Int64s arrays[3] = {{0}};
    Py_ssize_t *first = NULL;
    Span *spans = NULL;
    PyObject *result = NULL;
    for (int a = 0; a < 3; a++)
        if (int64s_open(objects[a], &arrays[a], names[a]) < 0)
            goto done;
    const int64_t *group = arrays[0].values, *start = arrays[1].values, *end = arrays[2].values;
    Py_ssize_t n = arrays[0].n;
    if (arrays[1].n != n || arrays[2].n != n || n_groups < 0) {
        PyErr_SetString(PyExc_ValueError, "covered_by_group: arrays of different lengths");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (group[i] < 0 || group[i] >= n_groups) {
            PyErr_SetString(PyExc_ValueError, "covered_by_group: a group out of range");
            goto done;
        }
    if (!(result = PyByteArray_FromStringAndSize(NULL, n_groups * sizeof(int64_t))))
        goto done;
    int64_t *total = (int64_t *)PyByteArray_AS_STRING(result);
    first = PyMem_Calloc(n_groups + 1, sizeof(Py_ssize_t));
    spans = PyMem_Malloc((n ? n : 1) * sizeof(Span));
    if (!first || !spans) {
        Py_CLEAR(result);
        PyErr_NoMemory();
        goto done;
    }
    /* each group's intervals together (a counting sort), then each group's by start */
    for (Py_ssize_t i = 0; i < n; i++)
        first[group[i] + 1]++;
    for (Py_ssize_t g = 0; g < n_groups; g++)
        first[g + 1] += first[g];
    for (Py_ssize_t i = 0; i < n; i++)
        spans[first[group[i]]++] = (Span){start[i], end[i]};
    for (Py_ssize_t g = 0, lo = 0; g < n_groups; lo = first[g++]) {
        Py_ssize_t hi = first[g];
        if (hi - lo > 16) {
            qsort(spans + lo, hi - lo, sizeof(Span), by_start);
        } else {
            for (Py_ssize_t i = lo + 1; i < hi; i++) {
                Span span = spans[i];
                Py_ssize_t at = i;
                for (; at > lo && spans[at - 1].start > span.start; at--)
                    spans[at] = spans[at - 1];
                spans[at] = span;
            }
        }
        /* filter/align.py's covered */
        int64_t sum = 0, reach = INT64_MIN;
        for (Py_ssize_t i = lo; i < hi; i++) {
            int64_t from = spans[i].start > reach ? spans[i].start : reach;
            if (spans[i].end > from)
                sum += spans[i].end - from;
            if (spans[i].end > reach)
                reach = spans[i].end;
        }
        total[g] = sum;
    }
done:
    for (int a = 0; a < 3; a++)
        int64s_close(&arrays[a]);
    PyMem_Free(first);
    PyMem_Free(spans);
    return result;
}

/* keys[0:n] ascending: a quicksort with the comparisons inline (qsort's call a comparison
 * was most of candidates' time), insertion sort for short runs, heapsort past a depth limit
 * so that no input makes it quadratic. Equal keys need no stability: they are equal. */
static void
sift_down_u64(uint64_t *keys, Py_ssize_t root, Py_ssize_t n)
{
    for (Py_ssize_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && keys[child + 1] > keys[child])
            child++;
        if (keys[root] >= keys[child])
            return;
        uint64_t swap = keys[root];
        keys[root] = keys[child];
        keys[child] = swap;
    }
}

static void
sort_u64(uint64_t *keys, Py_ssize_t n)
{
    int depth = 0;
    for (Py_ssize_t left = n; left > 1; left >>= 1)
        depth += 2;
    while (n > 16) {
        if (depth-- == 0) {
            for (Py_ssize_t root = n / 2 - 1; root >= 0; root--)
                sift_down_u64(keys, root, n);
            for (Py_ssize_t end = n - 1; end > 0; end--) {
                uint64_t swap = keys[0];
                keys[0] = keys[end];
                keys[end] = swap;
                sift_down_u64(keys, 0, end);
            }
            return;
        }
        uint64_t a = keys[0], b = keys[n / 2], c = keys[n - 1];
        uint64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        Py_ssize_t i = 0, j = n - 1;
        for (;;) { /* Hoare's partition: keys[0..j] <= pivot <= keys[j+1..n) */
            while (keys[i] < pivot)
                i++;
            while (keys[j] > pivot)
                j--;
            if (i >= j)
                break;
            uint64_t swap = keys[i];
            keys[i++] = keys[j];
            keys[j--] = swap;
        }
        /* the smaller side by recursion, the larger by the loop: the stack stays O(log n) */
        if (j + 1 < n - (j + 1)) {
            sort_u64(keys, j + 1);
            keys += j + 1;
            n -= j + 1;
        } else {
            sort_u64(keys + j + 1, n - (j + 1));
            n = j + 1;
        }
    }
    for (Py_ssize_t i = 1; i < n; i++) {
        uint64_t key = keys[i];
        Py_ssize_t j = i;
        for (; j > 0 && keys[j - 1] > key; j--)
            keys[j] = keys[j - 1];
        keys[j] = key;
    }
}

/* keys[0:n] ascending, keys below 2^bits: least significant digit first, 11 bits a pass,
 * through `scratch` (room for n). A batch's anchors as (record, artifact) keys: a few passes
 * over all of them, where a comparison sort of each record's cost a log factor more. */
static void
radix_sort_u64(uint64_t *keys, Py_ssize_t n, int bits, uint64_t *scratch)
{
    enum { DIGIT = 11, BUCKETS = 1 << 11 };
    uint64_t *from = keys, *into = scratch;
    Py_ssize_t at[BUCKETS];
    for (int shift = 0; shift < bits; shift += DIGIT) {
        memset(at, 0, sizeof at);
        for (Py_ssize_t i = 0; i < n; i++)
            at[(from[i] >> shift) & (BUCKETS - 1)]++;
        for (Py_ssize_t b = 0, total = 0; b < BUCKETS; b++) {
            Py_ssize_t count = at[b];
            at[b] = total;
            total += count;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            into[at[(from[i] >> shift) & (BUCKETS - 1)]++] = from[i];
        uint64_t *swap = from;
        from = into;
        into = swap;
    }
    if (from != keys)
        memcpy(keys, from, n * sizeof(uint64_t));
}

static int
bits_for(Py_ssize_t n) /* the bits that hold 0 .. n - 1 */
{
    int bits = 0;
    while (bits < 63 && ((Py_ssize_t)1 << bits) < n)
        bits++;
    return bits;
}

/* candidates(owner, artifact_no, tokens, min_shared, n_tokens, min_overlap, max_gap, slack)
 *     -> [(record, [artifact numbers]), ...]
 *
 * filter/candidates.py's candidates: the anchors counted per (record, artifact)
 * pair (owner[a] is anchor a's record; owner None: every anchor is record 0's), slack[record]
 * added (slack None: none), and the pairs kept whose count reaches the artifact's min_shared
 * and, times max_gap, min_overlap of the smaller text; records in order, each one's artifact
 * numbers in order. */
static PyObject *
candidates(PyObject *self, PyObject *args)
{
    PyObject *objects[6] = {NULL, NULL, NULL, NULL, NULL, Py_None};
    double min_overlap;
    long long max_gap;
    if (!PyArg_ParseTuple(args, "OOOOOdL|O:candidates", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &min_overlap, &max_gap, &objects[5]))
        return NULL;
    static const char *names[6] = {"owner", "artifact_no", "tokens", "min_shared", "n_tokens",
                                   "slack"};
    Int64s arrays[6] = {{0}};
    uint64_t *keys = NULL;
    PyObject *result = NULL;
    int one_record = objects[0] == Py_None, with_slack = objects[5] != Py_None;
    for (int a = one_record; a < 5 + with_slack; a++)
        if (int64s_open(objects[a], &arrays[a], names[a]) < 0)
            goto done;
    const int64_t *owner = arrays[0].values, *artifact_no = arrays[1].values,
                  *tokens = arrays[2].values, *min_shared = arrays[3].values,
                  *n_tokens = arrays[4].values, *slack = arrays[5].values;
    Py_ssize_t n = arrays[1].n, n_artifacts = arrays[2].n, n_records = arrays[4].n;
    if ((!one_record && arrays[0].n != n) || arrays[3].n != n_artifacts ||
        (one_record && n_records != 1) || (with_slack && arrays[5].n != n_records)) {
        PyErr_SetString(PyExc_ValueError, "candidates: arrays of different lengths");
        goto done;
    }
    /* a key is (record, artifact number) in as few bits as they take */
    const int number_bits = bits_for(n_artifacts), key_bits = number_bits + bits_for(n_records);
    const uint64_t number_mask = ((uint64_t)1 << number_bits) - 1;
    if (key_bits > 64) {
        PyErr_SetString(PyExc_ValueError, "candidates: too many records and artifacts");
        goto done;
    }
    keys = PyMem_Malloc((n ? 2 * n : 1) * sizeof(uint64_t)); /* and room to sort them */
    if (keys == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int out_of_range = 0;
    /* Without the GIL: the keys are made and sorted in C arrays only. */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t a = 0; a < n; a++) {
        int64_t record = one_record ? 0 : owner[a];
        if (record < 0 || record >= n_records || artifact_no[a] < 0 ||
            artifact_no[a] >= n_artifacts) {
            out_of_range = 1;
            break;
        }
        keys[a] = ((uint64_t)record << number_bits) | (uint64_t)artifact_no[a];
    }
    if (out_of_range)
        ; /* reported below, with the GIL */
    else if (n < 4096)
        sort_u64(keys, n);
    else
        radix_sort_u64(keys, n, key_bits, keys + n);
    Py_END_ALLOW_THREADS
    if (out_of_range) {
        PyErr_SetString(PyExc_ValueError, "candidates: a record or artifact out of range");
        goto done;
    }
    result = PyList_New(0);
    if (result == NULL)
        goto done;
    PyObject *numbers = NULL;
    int64_t record_of_numbers = -1;
    for (Py_ssize_t first = 0, last; first < n; first = last) {
        for (last = first + 1; last < n && keys[last] == keys[first]; last++)
            ;
        int64_t record = (int64_t)(keys[first] >> number_bits);
        int64_t count = last - first + (with_slack ? slack[record] : 0);
        int64_t number = (int64_t)(keys[first] & number_mask);
        int64_t smaller = tokens[number] < n_tokens[record] ? tokens[number] : n_tokens[record];
        if (count < min_shared[number] ||
            !((double)(count * max_gap) >= min_overlap * (double)smaller))
            continue;
        if (record != record_of_numbers) {
            numbers = PyList_New(0);
            PyObject *pair = numbers ? Py_BuildValue("(LN)", (long long)record, numbers) : NULL;
            if (pair == NULL || PyList_Append(result, pair) < 0) {
                Py_XDECREF(pair);
                Py_CLEAR(result);
                goto done;
            }
            Py_DECREF(pair);
            record_of_numbers = record;
        }
        PyObject *value = PyLong_FromLongLong(number);
        if (value == NULL || PyList_Append(numbers, value) < 0) {
            Py_XDECREF(value);
            Py_CLEAR(result);
            goto done;
        }
        Py_DECREF(value);
    }
done:
    for (int a = 0; a < 6; a++)
        int64s_close(&arrays[a]);
    PyMem_Free(keys);
    return result;
}

/* -- words with their offsets ------------------------------------------------------------
 *
 * filter/normalise.py's tokenise(text): the normalised words of a text with the [start, end)
 * character span each came from, which a matched record's passages are cut at. An ASCII text
 * is blanked and scanned as it stands. Any other is normalised piece by piece as
 * _normalise_with_offsets does it (each non-ASCII character with the marks and invisible
 * characters after it, and an ASCII character a mark follows, is a piece, normalised by the
 * Python function given, once for each distinct piece; the ASCII between pieces is lowered),
 * then its markup blanked (norm-v2: the rules read the normalised text), and a word's offsets
 * come from the pieces it starts and ends in: exactly inside an ASCII stretch, the whole piece
 * otherwise. The blanking is _blanked's: _MARKUP is the line rules and the tag rule in one
 * regex, which is the one pass of strip_markup above, each match replaced by as many spaces, a
 * line match keeping its line break. tests/filter compares both with the pure-Python tokenise
 * and strip_markup on random text. */

static inline int
is_invisible(Py_UCS4 c) /* filter/normalise.py's _INVISIBLE */
{
    return c == 0xAD || c == 0x200B || c == 0x200C || c == 0x200D || c == 0x2060 ||
           c == 0xFEFF;
}

typedef struct {
    Py_ssize_t out_start, text_start, length;
    int exact;
} Piece;

static int
pieces_push(Growable *b, Py_ssize_t out_start, Py_ssize_t text_start, Py_ssize_t length, int exact)
{
    if (b->len == b->cap && growable_grow(b, sizeof(Piece), 64) < 0)
        return -1;
    ((Piece *)b->data)[b->len++] = (Piece){out_start, text_start, length, exact};
    return 0;
}

/* The end of the piece _NON_ASCII_CHAR matches at i, or -1:
 * (?:[\x00-\x7f](?=[INVISIBLE]*[COMBINING]))?[^\x00-\x7f][COMBINING INVISIBLE]* */
#define AT(i) PyUnicode_READ(kind, data, (i))

static inline Py_ssize_t
piece_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t i)
{
    if (AT(i) < 0x80) { /* an ASCII character a mark follows */
        Py_ssize_t j = i + 1;
        while (j < n && is_invisible(AT(j)))
            j++;
        if (!(j < n && is_mark(AT(j))))
            return -1;
        i++;
    }
    i++; /* a non-ASCII character (after an ASCII one: the invisible one or mark after it) */
    while (i < n && (is_mark(AT(i)) || is_invisible(AT(i))))
        i++;
    return i;
}

/* Room in `b` (code points) for `room` more; -1 with MemoryError */
static int
u32s_room(Growable *b, Py_ssize_t room)
{
    while (b->cap - b->len < room)
        if (growable_grow(b, sizeof(uint32_t), room) < 0)
            return -1;
    return 0;
}

static int
u32s_append_str(Growable *out, PyObject *str)
{
    int kind = PyUnicode_KIND(str);
    const void *data = PyUnicode_DATA(str);
    Py_ssize_t m = PyUnicode_GET_LENGTH(str);
    if (u32s_room(out, m) < 0)
        return -1;
    uint32_t *into = (uint32_t *)out->data + out->len;
    for (Py_ssize_t j = 0; j < m; j++)
        into[j] = AT(j);
    out->len += m;
    return 0;
}

/* The normalised text of s (n code points, markup blanked, not all ASCII) and the pieces that
 * map it back, as _normalise_with_offsets makes them. */
static int
normalised_with_pieces(const Py_UCS4 *s, Py_ssize_t n, PyObject *normalise, Growable *out,
                       Growable *pieces)
{
    PyObject *seen = PyDict_New(); /* piece -> its normalised form */
    if (seen == NULL)
        return -1;
    Py_ssize_t done = 0, i = 0, end;
    int failed = -1;
    while (i < n) {
        if ((s[i] < 0x80 && (i + 1 >= n || s[i + 1] < 0x80)) ||
            (end = piece_end(PyUnicode_4BYTE_KIND, s, n, i)) < 0) {
            i++;
            continue;
        }
        if (i > done) {
            if (pieces_push(pieces, out->len, done, i - done, 1) < 0)
                goto done;
            for (Py_ssize_t j = done; j < i; j++)
                if (u32s_push(out, ascii_lower(s[j])) < 0)
                    goto done;
        }
        PyObject *piece = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s + i, end - i);
        if (piece == NULL)
            goto done;
        PyObject *normalised = PyDict_GetItemWithError(seen, piece); /* borrowed */
        if (normalised == NULL && !PyErr_Occurred()) {
            normalised = PyObject_CallOneArg(normalise, piece);
            if (normalised != NULL && !PyUnicode_Check(normalised)) {
                PyErr_SetString(PyExc_TypeError, "word_spans: normalise must return str");
                Py_CLEAR(normalised);
            }
            if (normalised != NULL && PyDict_SetItem(seen, piece, normalised) < 0)
                Py_CLEAR(normalised);
            Py_XDECREF(normalised); /* the dict holds it */
        }
        Py_DECREF(piece);
        if (normalised == NULL)
            goto done;
        if (pieces_push(pieces, out->len, i, end - i, 0) < 0 ||
            u32s_append_str(out, normalised) < 0)
            goto done;
        done = i = end;
    }
    if (done < n) {
        if (pieces_push(pieces, out->len, done, n - done, 1) < 0)
            goto done;
        for (Py_ssize_t j = done; j < n; j++)
            if (u32s_push(out, ascii_lower(s[j])) < 0)
                goto done;
    }
    failed = 0;
done:
    Py_DECREF(seen);
    return failed;
}

/* Where output position `at` came from in the text (an end is one past the last character):
 * tokenise's original(), the piece found by moving *cursor forwards. */
static inline Py_ssize_t
original_offset(const Growable *pieces, Py_ssize_t *cursor, Py_ssize_t position, int end)
{
    Py_ssize_t at = end ? position - 1 : position;
    const Piece *all = pieces->data;
    while (*cursor + 1 < pieces->len && all[*cursor + 1].out_start <= at)
        (*cursor)++;
    const Piece *p = &all[*cursor];
    if (p->exact)
        return p->text_start + (at - p->out_start) + (end ? 1 : 0);
    return end ? p->text_start + p->length : p->text_start;
}

static PyObject *
offsets_list(const Growable *offsets)
{
    PyObject *list = PyList_New(offsets->len);
    for (Py_ssize_t j = 0; list != NULL && j < offsets->len; j++) {
        PyObject *value = PyLong_FromSsize_t((Py_ssize_t)((const uint64_t *)offsets->data)[j]);
        if (value == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, j, value);
    }
    return list;
}

/* The markup of s (n code points, ASCII or normalised) blanked in place, as _blanked does it;
 * with `ranges`, each blanked [start, end) pushed to it as two u64s. Every rule reads forwards
 * from where it starts and the pass moves on past each match, so what it blanks is never read
 * again. -1 with MemoryError. */
static int
blank_in_place(Py_UCS4 *s, Py_ssize_t n, Growable *ranges)
{
    const int kind = PyUnicode_4BYTE_KIND;
    const void *data = s;
    Py_ssize_t i = 0, from, end;
    while (i <= n) {
        if (i == 0 && (end = line_markup_end(kind, data, n, 0)) >= 0)
            from = 0; /* the first line, after the line break strip_markup puts before it */
        else if (i < n && s[i] == '\n' && (end = line_markup_end(kind, data, n, i + 1)) >= 0)
            from = i + 1;
        else if (i < n && may_start_inline(s[i]) && (end = inline_end(kind, data, n, i)) >= 0)
            from = i;
        else {
            i++;
            continue;
        }
        for (Py_ssize_t j = from; j < end; j++)
            s[j] = ' ';
        if (ranges != NULL && end > from &&
            (u64s_push(ranges, (uint64_t)from) < 0 || u64s_push(ranges, (uint64_t)end) < 0))
            return -1;
        i = end > i ? end : i + 1;
    }
    return 0;
}

/* text as a buffer of n + 1 code points, or NULL */
static Py_UCS4 *
code_points_of(PyObject *text, const char *name, Py_ssize_t *n)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s: text must be str, not %.100s", name,
                     Py_TYPE(text)->tp_name);
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    *n = PyUnicode_GET_LENGTH(text);
    Py_UCS4 *out = PyMem_Malloc((*n + 1) * sizeof(Py_UCS4));
    if (out == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t j = 0; j < *n; j++)
        out[j] = PyUnicode_READ(kind, data, j);
    return out;
}

static int
all_ascii(const Py_UCS4 *s, Py_ssize_t n)
{
    int ascii = 1;
    for (Py_ssize_t j = 0; j < n; j++)
        ascii &= s[j] < 0x80;
    return ascii;
}

/* blank_markup(text, normalise) -> str: filter/normalise.py's strip_markup(text), `normalise`
 * its _normalise. The markup is found in the normalised text and each match blanked in `text`
 * from where its first position came from to where its last did (a piece partly covered is
 * blanked whole). */
static PyObject *
blank_markup(PyObject *self, PyObject *args)
{
    PyObject *text, *normalise, *result = NULL;
    if (!PyArg_ParseTuple(args, "OO:blank_markup", &text, &normalise))
        return NULL;
    if (mark_bits == NULL)
        return PyErr_Format(PyExc_RuntimeError, "set_marks was never called");
    Py_ssize_t n;
    Py_UCS4 *s = code_points_of(text, "blank_markup", &n);
    if (s == NULL)
        return NULL;
    Growable normalised = {0}, pieces = {0}, ranges = {0};
    if (all_ascii(s, n)) {
        if (blank_in_place(s, n, NULL) < 0)
            goto done;
    } else {
        if (normalised_with_pieces(s, n, normalise, &normalised, &pieces) < 0 ||
            blank_in_place(normalised.data, normalised.len, &ranges) < 0)
            goto done;
        const uint64_t *blanked = ranges.data;
        Py_ssize_t cursor = 0, done = 0;
        for (Py_ssize_t r = 0; r + 1 < ranges.len; r += 2) {
            Py_ssize_t first = original_offset(&pieces, &cursor, (Py_ssize_t)blanked[r], 0);
            Py_ssize_t last = original_offset(&pieces, &cursor, (Py_ssize_t)blanked[r + 1], 1);
            for (Py_ssize_t j = first > done ? first : done; j < last; j++)
                s[j] = ' ';
            done = last;
        }
    }
    result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s, n);
done:
    PyMem_Free(s);
    PyMem_Free(normalised.data);
    PyMem_Free(pieces.data);
    PyMem_Free(ranges.data);
    return result;
}

/* word_spans(text, normalise, with_words) -> (words or None, starts, ends)
 *
 * filter/normalise.py's tokenise(text) as (words, starts, ends), lists; `normalise` is its
 * _normalise (NFKC and casefold, in Python: unicodedata is C already). Without `with_words`
 * the words are not made (None): the spans alone, what a match's passages need. */
static PyObject *
word_spans(PyObject *self, PyObject *args)
{
    PyObject *text, *normalise;
    int with_words;
    if (!PyArg_ParseTuple(args, "OOp:word_spans", &text, &normalise, &with_words))
        return NULL;
    if (mark_bits == NULL)
        return PyErr_Format(PyExc_RuntimeError, "set_marks was never called");
    Py_ssize_t n;
    Py_UCS4 *s = code_points_of(text, "word_spans", &n);
    if (s == NULL)
        return NULL;
    Growable normalised = {0};
    Growable pieces = {0};
    Growable starts = {0}, ends = {0};
    PyObject *words = NULL, *start_list = NULL, *end_list = NULL, *result = NULL;
    int ascii = all_ascii(s, n);
    const Py_UCS4 *scan = s;
    Py_ssize_t scanned = n;
    if (ascii) {
        if (blank_in_place(s, n, NULL) < 0)
            goto done;
    } else {
        if (normalised_with_pieces(s, n, normalise, &normalised, &pieces) < 0 ||
            blank_in_place(normalised.data, normalised.len, NULL) < 0)
            goto done;
        scan = (const Py_UCS4 *)normalised.data;
        scanned = normalised.len;
    }
    words = with_words ? PyList_New(0) : Py_NewRef(Py_None);
    if (words == NULL)
        goto done;
    Py_ssize_t cursor = 0;
    for (Py_ssize_t i = 0; i < scanned;) {
        if (!is_word(scan[i])) {
            i++;
            continue;
        }
        Py_ssize_t start = i++;
        /* ASCII: [^\W_]+ (re.ASCII); normalised: [^\W_](?:[^\W_]|[MARKS])* */
        while (i < scanned && (is_word(scan[i]) || (!ascii && is_mark(scan[i]))))
            i++;
        if (with_words) {
            PyObject *word;
            if (ascii) {
                word = PyUnicode_New(i - start, 127);
                if (word != NULL) {
                    Py_UCS1 *bytes = PyUnicode_1BYTE_DATA(word);
                    for (Py_ssize_t j = start; j < i; j++)
                        bytes[j - start] = (Py_UCS1)ascii_lower(scan[j]);
                }
            } else {
                word = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, scan + start, i - start);
            }
            if (word == NULL || PyList_Append(words, word) < 0) {
                Py_XDECREF(word);
                goto done;
            }
            Py_DECREF(word);
        }
        Py_ssize_t first = start, last = i;
        if (!ascii) {
            first = original_offset(&pieces, &cursor, start, 0);
            last = original_offset(&pieces, &cursor, i, 1);
        }
        if (u64s_push(&starts, (uint64_t)first) < 0 || u64s_push(&ends, (uint64_t)last) < 0)
            goto done;
    }
    if ((start_list = offsets_list(&starts)) == NULL || (end_list = offsets_list(&ends)) == NULL)
        goto done;
    result = PyTuple_Pack(3, words, start_list, end_list);
done:
    Py_XDECREF(words);
    Py_XDECREF(start_list);
    Py_XDECREF(end_list);
    PyMem_Free(s);
    PyMem_Free(normalised.data);
    PyMem_Free(pieces.data);
    PyMem_Free(starts.data);
    PyMem_Free(ends.data);
    return result;
}

/* -- the normalised text, piece by piece -------------------------------------------------
 *
 * normalised(text, piece_form) -> str, or None: filter/normalise.py's _normalise(text) made
 * from the pieces _NON_ASCII_CHAR finds (a non-ASCII character with its marks, an ASCII one a
 * mark follows), each normalised once in the process and then read from a cache, the ASCII
 * between them lowered here. Most words of a text with some non-ASCII character are ASCII, and
 * most of its non-ASCII characters are a few (dashes, arrows, quotes; a script's letters):
 * NFKC and casefold of the whole text cost more than the rest of a check.
 *
 * `piece_form(piece)` (normalise.py's _piece_form) gives (its normalised form, how it joins:
 * JOINS 2, JOINS_AFTER_ASCII 1, APART 0): a piece's form can be put after what precedes it
 * when NFKC cannot reach back across the join (filter/normalise.py says when). A piece that
 * cannot is taken again with the pieces around it (normalised_onto); a text where that does
 * not join either gives None: the caller normalises it whole. The cache is the process's:
 * single code points in pages of 256, longer pieces in a dict emptied when it is full; it is
 * kept while the same `piece_form` is passed and emptied when another is. */

enum { APART, JOINS_AFTER_ASCII, JOINS }; /* how a piece's form joins: normalise.py's */

#define NOT_ONE 0xFFFFFFFFu

typedef struct {
    PyObject *form; /* NULL: not looked up yet */
    int joins;
    Py_UCS4 one; /* the form's code point when it is one that joins, else NOT_ONE */
} Form;

#define FORM_PAGES (N_CODES >> 8)
#define MAX_PIECES 65536
static Form *form_pages[FORM_PAGES];
static PyObject *piece_forms = NULL; /* longer piece -> (form, joins) */
static PyObject *forms_by = NULL;    /* the piece_form the cache holds the results of */

static void
forms_clear(void)
{
    for (Py_ssize_t p = 0; p < FORM_PAGES; p++) {
        if (form_pages[p] == NULL)
            continue;
        for (int j = 0; j < 256; j++)
            Py_XDECREF(form_pages[p][j].form);
        PyMem_Free(form_pages[p]);
        form_pages[p] = NULL;
    }
    if (piece_forms != NULL)
        PyDict_Clear(piece_forms);
}

/* piece_form(piece) as (form, joins), checked; a new reference to the form, or NULL */
static PyObject *
form_called(PyObject *piece_form, PyObject *piece, int *joins)
{
    PyObject *pair = PyObject_CallOneArg(piece_form, piece), *form = NULL;
    if (pair == NULL)
        return NULL;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(pair, 0))) {
        PyErr_SetString(PyExc_TypeError, "normalised: piece_form must return (str, int)");
    } else {
        long how = PyLong_AsLong(PyTuple_GET_ITEM(pair, 1));
        if (how == -1 && PyErr_Occurred())
            ;
        else if (how < 0 || how > 2)
            PyErr_SetString(PyExc_ValueError, "normalised: piece_form's join must be 0, 1 or 2");
        else {
            *joins = (int)how;
            form = Py_NewRef(PyTuple_GET_ITEM(pair, 0));
        }
    }
    Py_DECREF(pair);
    return form;
}

/* The form of the piece data[from:from + n] (borrowed: the cache holds it), or NULL with an
 * exception */
static PyObject *
form_of(int kind, const void *data, Py_ssize_t from, Py_ssize_t n, PyObject *piece_form,
        int *joins)
{
    if (n == 1) {
        Py_UCS4 c = AT(from);
        Form **page = &form_pages[c >> 8];
        if (*page == NULL && (*page = PyMem_Calloc(256, sizeof(Form))) == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        Form *slot = &(*page)[c & 255];
        if (slot->form == NULL) {
            PyObject *piece = PyUnicode_FromOrdinal((int)c);
            if (piece == NULL)
                return NULL;
            slot->form = form_called(piece_form, piece, &slot->joins);
            Py_DECREF(piece);
            if (slot->form == NULL)
                return NULL;
            slot->one = slot->joins == JOINS && PyUnicode_GET_LENGTH(slot->form) == 1
                            ? PyUnicode_READ_CHAR(slot->form, 0)
                            : NOT_ONE;
        }
        *joins = slot->joins;
        return slot->form;
    }
    PyObject *piece = PyUnicode_FromKindAndData(kind, (const char *)data + from * kind, n);
    if (piece == NULL)
        return NULL;
    PyObject *pair = PyDict_GetItemWithError(piece_forms, piece); /* borrowed */
    if (pair == NULL && !PyErr_Occurred()) {
        int joins_now;
        PyObject *form = form_called(piece_form, piece, &joins_now);
        if (form != NULL) {
            if (PyDict_GET_SIZE(piece_forms) >= MAX_PIECES)
                PyDict_Clear(piece_forms);
            PyObject *stored = Py_BuildValue("(Ni)", form, joins_now);
            if (stored != NULL && PyDict_SetItem(piece_forms, piece, stored) == 0)
                pair = stored; /* the dict holds it */
            Py_XDECREF(stored);
        }
    }
    Py_DECREF(piece);
    if (pair == NULL)
        return NULL;
    *joins = (int)PyLong_AsLong(PyTuple_GET_ITEM(pair, 1));
    return PyTuple_GET_ITEM(pair, 0);
}

/* The cache ready for `piece_form` (emptied if it held another's forms); -1 with an exception */
static int
forms_for(PyObject *piece_form)
{
    if (mark_bits == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_marks was never called");
        return -1;
    }
    if (piece_forms == NULL && (piece_forms = PyDict_New()) == NULL)
        return -1;
    if (forms_by != piece_form) {
        forms_clear();
        Py_XSETREF(forms_by, Py_NewRef(piece_form));
    }
    return 0;
}

/* The run of ASCII from i lowered into `into` (room for all of it): where it ends. Read and
 * written in blocks of eight characters (a block's loops vectorise), then one at a time. */
static inline __attribute__((always_inline)) Py_ssize_t
lowered_ascii_run(int kind, const void *data, Py_ssize_t n, Py_ssize_t i, uint32_t *into)
{
    for (; i + 8 <= n; i += 8, into += 8) {
        uint32_t block[8], any = 0;
        for (int j = 0; j < 8; j++)
            any |= block[j] = AT(i + j);
        if (any >= 0x80)
            break;
        for (int j = 0; j < 8; j++)
            into[j] = ascii_lower(block[j]);
    }
    for (Py_UCS4 c; i < n && (c = AT(i)) < 0x80; i++)
        *into++ = ascii_lower(c);
    return i;
}

/* The text (kind, data, n) normalised by pieces onto the end of `out` (code points): 1, or 0
 * where a piece does not join as it stands (`out` as it was), or -1 with an exception. Inlined
 * for each kind: the stretches of ASCII, most of a text, are read in its own width.
 *
 * A piece that does not join as it stands (a Hangul vowel after a compatibility consonant:
 * NFKC makes the two one syllable) is normalised again with the pieces around it, from the
 * last ASCII character that heads no piece to the next, as one piece: nothing composes with
 * such a character or reorders across it, so that stretch normalises alone as it does in the
 * whole text, unless its own head reaches back (JOINS_AFTER_ASCII is enough: what precedes
 * it is such a character or nothing). Only where it does is the text normalised whole. */
static inline __attribute__((always_inline)) int
normalised_onto(int kind, const void *data, Py_ssize_t n, PyObject *piece_form, Growable *out)
{
    Py_ssize_t had = out->len, i = 0, end;
    /* where the pieces since the last such ASCII character start, in the text and in out */
    Py_ssize_t stretch_from = 0, stretch_at = out->len;
    while (i < n) {
        /* a stretch of ASCII no mark follows (all of a run but a last character before one
         * that is not ASCII), lowered in one loop, with room for the rest of the text (only a
         * piece whose form is longer needs more) */
        if (u32s_room(out, n - i) < 0)
            return -1;
        uint32_t *into = (uint32_t *)out->data + out->len;
        Py_ssize_t run_end = lowered_ascii_run(kind, data, n, i, into);
        Py_ssize_t stretch_end = run_end < n ? run_end - 1 : n; /* (the last one written again) */
        if (stretch_end > i) {
            out->len += stretch_end - i;
            i = stretch_from = stretch_end;
            stretch_at = out->len;
        }
        if (i >= n)
            break;
        /* a script's letters, each a piece alone whose form is one code point that joins:
         * written from the cache where it stands (in the room: one for one) */
        for (Py_UCS4 c; i < n && (c = AT(i)) >= 0x80; i++) {
            if (i + 1 < n && AT(i + 1) >= 0x80 && (is_mark(AT(i + 1)) || is_invisible(AT(i + 1))))
                break;
            const Form *page = form_pages[c >> 8];
            if (page == NULL || page[c & 255].form == NULL || page[c & 255].one == NOT_ONE)
                break;
            ((uint32_t *)out->data)[out->len++] = page[c & 255].one;
        }
        if (i >= n)
            break;
        if ((end = piece_end(kind, data, n, i)) < 0) {
            ((uint32_t *)out->data)[out->len++] = ascii_lower(AT(i)); /* (in the room) */
            stretch_from = ++i;
            stretch_at = out->len;
            continue;
        }
        int joins;
        PyObject *form = form_of(kind, data, i, end - i, piece_form, &joins);
        if (form == NULL)
            return -1;
        if (joins != JOINS) {
            /* the pieces from stretch_from up to the next ASCII character heading none: what
             * precedes them is such a character or nothing */
            Py_ssize_t next;
            while (end < n && (next = piece_end(kind, data, n, end)) >= 0)
                end = next;
            form = form_of(kind, data, stretch_from, end - stretch_from, piece_form, &joins);
            if (form == NULL)
                return -1;
            if (joins == APART) {
                out->len = had;
                return 0;
            }
            out->len = stretch_at;
        }
        if (u32s_append_str(out, form) < 0)
            return -1;
        i = end;
    }
    return 1;
}

/* normalised_onto for a ready str */
static int
str_normalised_onto(PyObject *text, PyObject *piece_form, Growable *out)
{
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return normalised_onto(PyUnicode_1BYTE_KIND, data, n, piece_form, out);
    case PyUnicode_2BYTE_KIND:
        return normalised_onto(PyUnicode_2BYTE_KIND, data, n, piece_form, out);
    default:
        return normalised_onto(PyUnicode_4BYTE_KIND, data, n, piece_form, out);
    }
}

static PyObject *
normalised(PyObject *self, PyObject *args)
{
    PyObject *text, *piece_form, *result = NULL;
    if (!PyArg_ParseTuple(args, "UO:normalised", &text, &piece_form))
        return NULL;
    if (forms_for(piece_form) < 0)
        return NULL;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    Growable out = {0};
    int joined = str_normalised_onto(text, piece_form, &out);
    if (joined > 0)
        result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out.data, out.len);
    else if (joined == 0)
        result = Py_NewRef(Py_None);
    PyMem_Free(out.data);
    return result;
}

/* -- the shingles of texts, one pass each --------------------------------------------------
 *
 * text_shingles(texts, k, piece_form, normalise) -> (shingle hashes, word counts)
 *
 * filter/shingles.py's texts_shingles in one call. Each text normalised by pieces unless it
 * is ASCII (normalised above; a text with a piece that does not join is normalised whole by
 * `normalise`, filter/normalise.py's _normalise), then its markup cut and its words hashed in
 * the one scan (cut_scan, hash_ascii_word, hash_ucs4_word); then every window of k consecutive
 * word hashes of one text mixed into a shingle hash. The shingles of all texts one after
 * another, as uint64 in a bytearray, and each text's word count, as int64 in a bytearray; a
 * text of n words has max(n - k + 1, 0) shingles. No str is made between the steps: the
 * normalised texts are code points in one buffer, which the cut reads as the ASCII texts
 * are read, where they stand.
 *
 * Only the normalising calls Python (the cache's misses, a text normalised whole); the rest
 * runs without the GIL, so a server's other threads and check_many's callers use the other
 * cores meanwhile. The texts are taken a stretch at a time, as many as fill FLUSH_AT code points
 * of normalised text (hashed while it is still in the cache), the ASCII ones read where they
 * stand. */

#define FLUSH_AT 65536

/* Where a ready text's words are read from: an ASCII str's own bytes, or else `n` normalised
 * code points at `at` in the buffer */
typedef struct {
    const unsigned char *ascii;
    Py_ssize_t at, n;
} Ready;

/* text_shingles' callbacks of the cut: nothing kept, each word hashed where it starts */
typedef struct {
    const void *text;
    Py_ssize_t n;
    Growable *hashes;
    Bytes *word;
} Hashing;

static inline int
keep_nothing(void *state, Py_UCS4 separator, Py_ssize_t from, Py_ssize_t to)
{
    return 0;
}

static inline Py_ssize_t
past_ascii_word(void *state, Py_ssize_t i)
{
    Hashing *h = state;
    const unsigned char *s = h->text;
    return ascii_word[s[i]] ? hash_ascii_word(s, h->n, i, h->hashes, h->word) : i + 1;
}

static inline Py_ssize_t
past_normalised_word(void *state, Py_ssize_t i)
{
    Hashing *h = state;
    const Py_UCS4 *s = h->text;
    return is_word(s[i]) ? hash_ucs4_word(s, h->n, i, h->hashes, h->word) : i + 1;
}

/* The words of ready texts hashed onto `hashes`, each text's count in count_of; without the
 * GIL: -1 without an exception when there is no room. */
static int
hash_ready(const Ready *ready, Py_ssize_t n_texts, const Py_UCS4 *normalised, Growable *hashes,
           Bytes *word, int64_t *count_of)
{
    for (Py_ssize_t t = 0; t < n_texts; t++) {
        Py_ssize_t before = hashes->len, n = ready[t].n;
        int failed;
        if (ready[t].ascii != NULL) {
            Hashing h = {ready[t].ascii, n, hashes, word};
            failed = cut_scan(PyUnicode_1BYTE_KIND, h.text, n, keep_nothing, past_ascii_word, &h);
        } else {
            Hashing h = {normalised + ready[t].at, n, hashes, word};
            failed =
                cut_scan(PyUnicode_4BYTE_KIND, h.text, n, keep_nothing, past_normalised_word, &h);
        }
        if (failed < 0)
            return -1;
        count_of[t] = hashes->len - before;
    }
    return 0;
}

/* A text that is not ASCII normalised onto `out`: by pieces, else whole by `normalise`; -1
 * with an exception */
static int
text_normalised_onto(PyObject *text, PyObject *piece_form, PyObject *normalise, Growable *out)
{
    int joined = str_normalised_onto(text, piece_form, out);
    if (joined != 0)
        return joined < 0 ? -1 : 0;
    PyObject *whole = PyObject_CallOneArg(normalise, text);
    if (whole == NULL)
        return -1;
    int failed = -1;
    if (!PyUnicode_Check(whole))
        PyErr_SetString(PyExc_TypeError, "text_shingles: normalise must return str");
#if PY_VERSION_HEX < 0x030C0000
    else if (PyUnicode_READY(whole) < 0)
        ;
#endif
    else
        failed = u32s_append_str(out, whole);
    Py_DECREF(whole);
    return failed;
}

static PyObject *
text_shingles(PyObject *self, PyObject *args)
{
    PyObject *texts, *piece_form, *normalise;
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "OnOO:text_shingles", &texts, &k, &piece_form, &normalise))
        return NULL;
    if (k < 1)
        return PyErr_Format(PyExc_ValueError, "text_shingles: k must be at least 1, not %zd", k);
    if (forms_for(piece_form) < 0)
        return NULL;
    /* a tuple of its own: the callbacks run Python, which may change a list meanwhile */
    PyObject *held = PySequence_Tuple(texts);
    if (held == NULL)
        return NULL;
    Py_ssize_t n_texts = PyTuple_GET_SIZE(held);
    for (Py_ssize_t t = 0; t < n_texts; t++) {
        PyObject *text = PyTuple_GET_ITEM(held, t);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "text_shingles: texts must be str, not %.100s",
                         Py_TYPE(text)->tp_name);
            Py_DECREF(held);
            return NULL;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(text) < 0) {
            Py_DECREF(held);
            return NULL;
        }
#endif
    }
    PyObject *counts = PyByteArray_FromStringAndSize(NULL, n_texts * (Py_ssize_t)sizeof(int64_t));
    Ready *ready = PyMem_Malloc((n_texts ? n_texts : 1) * sizeof(Ready));
    Growable normalised = {0}, hashes = {0};
    Bytes word = {0};
    PyObject *result = NULL, *mixed = NULL;
    if (counts == NULL || ready == NULL) {
        if (ready == NULL)
            PyErr_NoMemory();
        goto done;
    }
    int64_t *count_of = (int64_t *)PyByteArray_AS_STRING(counts);
    int out_of_memory = 0;
    for (Py_ssize_t first = 0, t = 0; t < n_texts; t++) {
        PyObject *text = PyTuple_GET_ITEM(held, t);
        if (PyUnicode_IS_ASCII(text)) {
            ready[t] = (Ready){PyUnicode_DATA(text), 0, PyUnicode_GET_LENGTH(text)};
        } else {
            Py_ssize_t at = normalised.len;
            if (text_normalised_onto(text, piece_form, normalise, &normalised) < 0)
                goto done;
            ready[t] = (Ready){NULL, at, normalised.len - at};
        }
        if (normalised.len < FLUSH_AT && t + 1 < n_texts)
            continue;
        Py_BEGIN_ALLOW_THREADS
        out_of_memory = hash_ready(ready + first, t + 1 - first, normalised.data, &hashes, &word,
                                   count_of + first) < 0;
        Py_END_ALLOW_THREADS
        if (out_of_memory) {
            PyErr_NoMemory();
            goto done;
        }
        normalised.len = 0;
        first = t + 1;
    }
    Py_ssize_t n_shingles = 0;
    for (Py_ssize_t t = 0; t < n_texts; t++)
        if (count_of[t] >= k)
            n_shingles += count_of[t] - k + 1;
    mixed = PyByteArray_FromStringAndSize(NULL, n_shingles * (Py_ssize_t)sizeof(uint64_t));
    if (mixed == NULL)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    mix_shingles(hashes.data, count_of, n_texts, k, (uint64_t *)PyByteArray_AS_STRING(mixed));
    Py_END_ALLOW_THREADS
    result = PyTuple_Pack(2, mixed, counts);
done:
    Py_XDECREF(mixed);
    Py_XDECREF(counts);
    Py_DECREF(held);
    PyMem_Free(ready);
    PyMem_Free(normalised.data);
    PyMem_RawFree(hashes.data);
    PyMem_RawFree(word.data);
    return result;
}

#undef AT

/* -- the module -------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"set_marks", set_marks, METH_O,
     "set_marks(ranges): the combining marks that join a word, as (first, last) code points."},
    {"char_classes", char_classes, METH_NOARGS,
     "char_classes() -> bytes: each code point's class bits (1 word, 2 mark, 4 space, 8 digit)."},
    {"strip_markup", strip_markup, METH_O,
     "strip_markup(text): filter/markup.py's cut_markup(text), text ASCII or normalised."},
    {"lookup", lookup, METH_VARARGS,
     "lookup(shingles, hashes, postings, directory, bitmap, shift, bitmap_mask, max_run): "
     "ShingleIndex.lookup_distinctive over the index's arrays."},
    {"candidates", candidates, METH_VARARGS,
     "candidates(owner, artifact_no, tokens, min_shared, n_tokens, min_overlap, max_gap, slack): "
     "filter/candidates.py's candidates."},
    {"text_shingles", text_shingles, METH_VARARGS,
     "text_shingles(texts, k, piece_form, normalise) -> (shingle hashes as uint64, word counts "
     "as int64), bytearrays: filter/shingles.py's texts_shingles."},
    {"blank_markup", blank_markup, METH_VARARGS,
     "blank_markup(text, normalise): filter/normalise.py's strip_markup(text)."},
    {"word_spans", word_spans, METH_VARARGS,
     "word_spans(text, normalise, with_words) -> (words or None, starts, ends): "
     "filter/normalise.py's tokenise(text)."},
    {"normalised", normalised, METH_VARARGS,
     "normalised(text, piece_form) -> str or None: filter/normalise.py's _normalise(text), "
     "by pieces each normalised once."},
    {"covered_by_group", covered_by_group, METH_VARARGS,
     "covered_by_group(group, start, end, n_groups) -> int64 bytearray: filter/measure.py's "
     "covered_by_group."},
    {"align_many", align_many, METH_VARARGS,
     "align_many(record_pos, artifact_no, artifact_pos, numbers, k, max_gap, min_anchors, "
     "max_bridge, max_runs) -> (counts, passages): int64 bytearrays, the passages of each "
     "artifact number (five int64 a passage)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "filter._speedups",
    "The matcher's hot loops in C (filter/speedups.py says whether they are in use).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    for (int c = 0; c < 128; c++)
        ascii_word[c] = !(not_word8((uint64_t)c) & 0x80); /* (one home: the ranges there) */
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "API", SPEEDUPS_API) < 0 ||
        PyModule_AddStringConstant(m, "XXHASH_VERSION", "0.8.4") < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
