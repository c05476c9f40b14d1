/* test_parallel.c — fb_parallel_for and the per-thread budget (src/parallel.c), on the CPU:
 *
 *   - every item of [0, n) is visited exactly once, for empty, short and long ranges,
 *     pieces of 1, of a few and of more than n items, on 1, 3 and the default threads;
 *   - a failing piece stops the claiming, its status and message come back (no hang),
 *     and the workers have the caller's context (fb_set_context) for their messages;
 *   - the budget: a body sees its share of its caller's (nested calls never multiply
 *     the threads), a budget of 1 runs every piece on the calling thread, and the
 *     caller's budget is as before afterwards. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "parallel.h"
#include "testing.h"

typedef struct visit {
    int64_t n;
    int *seen;
    int max_budget_seen;
    pthread_t caller;
    int off_caller; /* pieces run on another thread */
    pthread_mutex_t mu;
    int64_t fail_at; /* a piece holding this item fails; -1: none */
} visit;

static fb_status mark(void *ctx, int64_t lo, int64_t hi)
{
    visit *v = ctx;
    pthread_mutex_lock(&v->mu);
    for (int64_t i = lo; i < hi; i++) v->seen[i]++;
    const int b = fb_parallel_budget();
    if (b > v->max_budget_seen) v->max_budget_seen = b;
    if (!pthread_equal(pthread_self(), v->caller)) v->off_caller++;
    pthread_mutex_unlock(&v->mu);
    if (v->fail_at >= lo && v->fail_at < hi) {
        fb_error("piece [%lld, %lld) refused (%s)", (long long)lo, (long long)hi, fb_context_str());
        return FB_E_IO;
    }
    return FB_OK;
}

static void run(visit *v, int64_t n, int64_t grain)
{
    v->n = n;
    v->seen = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    v->max_budget_seen = 0;
    v->caller = pthread_self();
    v->off_caller = 0;
    v->fail_at = -1;
    pthread_mutex_init(&v->mu, NULL);
    CHECK(fb_parallel_for(n, grain, mark, v) == FB_OK);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += v->seen[i] != 1;
    CHECK(bad == 0);
    pthread_mutex_destroy(&v->mu);
    free(v->seen);
}

static void test_every_item_once(void)
{
    static const int64_t ns[] = {0, 1, 7, 1000, 100003};
    static const int64_t grains[] = {1, 3, 4096, 1 << 20};
    static const int budgets[] = {1, 3, 0};
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
        fb_parallel_set_budget(budgets[b]);
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
                visit v;
                run(&v, ns[i], grains[g]);
            }
    }
    fb_parallel_set_budget(0);
}

static void test_budget(void)
{
    visit v;
    /* one thread: every piece on the caller, which keeps its budget */
    fb_parallel_set_budget(1);
    run(&v, 64, 1);
    CHECK(v.off_caller == 0);
    CHECK(v.max_budget_seen == 1);
    CHECK(fb_parallel_budget() == 1);
    /* 8 threads over 4 pieces: each body has 8 / 4 = 2; the caller has its 8 again after */
    fb_parallel_set_budget(8);
    run(&v, 4, 1);
    CHECK(v.max_budget_seen == 2);
    CHECK(fb_parallel_budget() == 8);
    /* more pieces than threads: a body's share is 1 */
    run(&v, 100, 1);
    CHECK(v.max_budget_seen == 1);
    fb_parallel_set_budget(0);
    CHECK(fb_parallel_budget() >= 1 && fb_parallel_budget() <= FB_PARALLEL_MAX_THREADS);
}

static void test_failure(void)
{
    for (int budget = 1; budget <= 4; budget += 3) {
        fb_parallel_set_budget(budget);
        visit v = {.caller = pthread_self(), .fail_at = 500};
        v.seen = calloc(1000, sizeof(int));
        pthread_mutex_init(&v.mu, NULL);
        fb_set_context("test context %d", budget);
        fb_clear_error();
        CHECK(fb_parallel_for(1000, 10, mark, &v) == FB_E_IO);
        CHECK(strstr(fb_last_error(), "piece [500, 510) refused") != NULL);
        CHECK(strstr(fb_last_error(), "test context") != NULL);
        int64_t twice = 0;
        for (int i = 0; i < 1000; i++) twice += v.seen[i] > 1;
        CHECK(twice == 0);
        pthread_mutex_destroy(&v.mu);
        free(v.seen);
        fb_set_context("%s", "");
    }
    fb_parallel_set_budget(0);
}

int main(void)
{
    test_every_item_once();
    test_budget();
    test_failure();
    return fb_t_report("test_parallel");
}
