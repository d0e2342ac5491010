/* The compiled floor of a check: what any shingle matcher must at least do per record, in C.
 *
 *     floor ARTIFACT_HASHES RECORDS... [--repeats N] [--rounds]
 *
 * ARTIFACT_HASHES: the artifacts' shingle hashes, uint64 little-endian (bench/registry.py
 * writes poimen's own, so the floor's table holds what the index holds). Each RECORDS file:
 * records one after another, each a uint32 byte length then its UTF-8 bytes.
 *
 * Per record: tokenise (a word is a run of ASCII letters, digits and '_' or of any byte of
 * 0x80 and over, ASCII letters lowered: no NFKC, no casefold, no markup rules, no offsets),
 * hash each word with xxh3-64, mix each 5-word window as poimen does (h = h * M + next), and
 * probe an open-addressing table of the artifact hashes (linear probing, load 1/2), counting
 * hits. Prints one line a RECORDS file: "<file> <bytes> <best seconds> <MB/s> <hits>".
 * Single thread, best of the repeats, in CPU time (as the Python side is measured: the machine
 * is shared). With --rounds it loads once, then runs one pass of each file (one line each) for
 * every line read on stdin, until it ends: the caller interleaves its own passes with them, so
 * that each ratio compares two runs a moment apart, not two minutes of a shared machine.
 */
#define XXH_INLINE_ALL
#include "../filter/vendor/xxhash/xxhash.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define K 5
static const uint64_t MULTIPLIER = 0x9E3779B97F4A7C15ULL;

static unsigned char *
read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        exit(2);
    }
    fseek(file, 0, SEEK_END);
    *size = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *data = malloc(*size ? *size : 1);
    if (!data || fread(data, 1, *size, file) != *size) {
        perror(path);
        exit(2);
    }
    fclose(file);
    return data;
}

static uint64_t *table;
static uint64_t table_mask;

static void
table_put(uint64_t hash)
{
    uint64_t key = hash ? hash : 1; /* 0 marks an empty slot */
    for (uint64_t at = (key * MULTIPLIER) >> 7 & table_mask;; at = (at + 1) & table_mask) {
        if (table[at] == key)
            return;
        if (!table[at]) {
            table[at] = key;
            return;
        }
    }
}

static inline int
table_has(uint64_t hash)
{
    uint64_t key = hash ? hash : 1;
    for (uint64_t at = (key * MULTIPLIER) >> 7 & table_mask;; at = (at + 1) & table_mask) {
        if (table[at] == key)
            return 1;
        if (!table[at])
            return 0;
    }
}

static unsigned char word_byte[256];

static long
check_record(const unsigned char *s, size_t n)
{
    uint64_t window[K];
    unsigned char lowered[256];
    long words = 0, hits = 0;
    size_t i = 0;
    while (i < n) {
        if (!word_byte[s[i]]) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < n && word_byte[s[i]])
            i++;
        size_t length = i - start;
        const unsigned char *word = s + start;
        if (length <= sizeof lowered) {
            for (size_t j = 0; j < length; j++) {
                unsigned char c = word[j];
                lowered[j] = (unsigned char)(c - 'A' < 26u ? c + 32 : c);
            }
            word = lowered;
        }
        window[words % K] = XXH3_64bits(word, length);
        words++;
        if (words >= K) {
            uint64_t value = window[(words - K) % K];
            for (int offset = 1; offset < K; offset++)
                value = value * MULTIPLIER + window[(words - K + offset) % K];
            hits += table_has(value);
        }
    }
    return hits;
}

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* One pass of `size` bytes of records: the CPU seconds it took, its hits in *hits. */
static double
one_pass(const unsigned char *records, size_t size, long *hits)
{
    double started = now();
    *hits = 0;
    for (size_t at = 0; at + 4 <= size;) {
        uint32_t length;
        memcpy(&length, records + at, 4);
        *hits += check_record(records + at + 4, length);
        at += 4 + length;
    }
    return now() - started;
}

int
main(int argc, char **argv)
{
    int repeats = 3, n_files = 0, rounds = 0;
    const char *files[16];
    for (int a = 2; a < argc; a++) {
        if (!strcmp(argv[a], "--repeats") && a + 1 < argc)
            repeats = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--rounds"))
            rounds = 1;
        else if (n_files < 16)
            files[n_files++] = argv[a];
    }
    if (argc < 3 || !n_files) {
        fprintf(stderr, "usage: floor ARTIFACT_HASHES RECORDS... [--repeats N] [--rounds]\n");
        return 2;
    }
    for (int c = 0; c < 256; c++)
        word_byte[c] = c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                       (c >= 'A' && c <= 'Z') || c == '_';
    size_t size;
    uint64_t *hashes = (uint64_t *)read_file(argv[1], &size);
    size_t n_hashes = size / 8, slots = 16;
    while (slots < 2 * n_hashes)
        slots *= 2;
    table = calloc(slots, sizeof(uint64_t));
    table_mask = slots - 1;
    for (size_t h = 0; h < n_hashes; h++)
        table_put(hashes[h]);
    free(hashes);
    unsigned char *records[16];
    size_t sizes[16];
    for (int f = 0; f < n_files; f++)
        records[f] = read_file(files[f], &sizes[f]);
    char line[64];
    while (!rounds || fgets(line, sizeof line, stdin)) {
        for (int f = 0; f < n_files; f++) {
            double best = 1e300;
            long hits = 0;
            for (int r = 0; r < (rounds ? 1 : repeats); r++) {
                double took = one_pass(records[f], sizes[f], &hits);
                best = took < best ? took : best;
            }
            printf("%s %zu %.6f %.2f %ld\n", files[f], sizes[f], best, sizes[f] / best / 1e6, hits);
        }
        fflush(stdout);
        if (!rounds)
            break;
    }
    for (int f = 0; f < n_files; f++)
        free(records[f]);
    return 0;
}
