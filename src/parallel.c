/* parallel.c — fb_parallel_for (parallel.h says what it promises). */
#include "parallel.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static _Thread_local int budget; /* 0: the default */

int fb_parallel_budget(void)
{
    if (budget > 0) return budget;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > FB_PARALLEL_MAX_THREADS ? FB_PARALLEL_MAX_THREADS : (int)n;
}

void fb_parallel_set_budget(int threads) { budget = threads > 0 ? threads : 0; }

int fb_parallel_share(int threads)
{
    const int share = threads > 0 ? fb_parallel_budget() / threads : fb_parallel_budget();
    return share > 1 ? share : 1;
}

typedef struct pfor {
    int64_t n, grain;
    fb_parallel_body body;
    void *ctx;
    int child_budget;
    pthread_mutex_t mu;
    int64_t next; /* the next piece's first item */
    fb_status status;
    char msg[1024];
    char context[512]; /* the caller's fb_set_context, for the workers' messages */
} pfor;

static void *pfor_work(void *arg)
{
    pfor *p = arg;
    fb_parallel_set_budget(p->child_budget);
    if (p->context[0]) fb_set_context("%s", p->context);
    for (;;) {
        pthread_mutex_lock(&p->mu);
        const int64_t lo = p->status == FB_OK ? p->next : p->n;
        const int64_t hi = lo + p->grain < p->n ? lo + p->grain : p->n;
        p->next = hi;
        pthread_mutex_unlock(&p->mu);
        if (lo >= p->n) break;
        const fb_status s = p->body(p->ctx, lo, hi);
        if (s != FB_OK) {
            pthread_mutex_lock(&p->mu);
            if (p->status == FB_OK) {
                p->status = s;
                snprintf(p->msg, sizeof p->msg, "%s", fb_last_error());
            }
            pthread_mutex_unlock(&p->mu);
            break;
        }
    }
    return NULL;
}

fb_status fb_parallel_for(int64_t n, int64_t grain, fb_parallel_body body, void *ctx)
{
    if (n <= 0) return FB_OK;
    if (grain < 1) grain = 1;
    const int64_t pieces = (n + grain - 1) / grain;
    const int have = fb_parallel_budget();
    const int threads = pieces < have ? (int)pieces : have;
    if (threads <= 1) {
        for (int64_t lo = 0; lo < n; lo += grain) {
            const fb_status s = body(ctx, lo, lo + grain < n ? lo + grain : n);
            if (s != FB_OK) return s;
        }
        return FB_OK;
    }
    pfor p = {.n = n, .grain = grain, .body = body, .ctx = ctx, .child_budget = fb_parallel_share(threads)};
    snprintf(p.context, sizeof p.context, "%s", fb_context_str());
    pthread_mutex_init(&p.mu, NULL);
    pthread_t tid[FB_PARALLEL_MAX_THREADS];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tid[started], NULL, pfor_work, &p) != 0) break; /* fewer threads: same result */
        started++;
    }
    const int saved = budget;
    pfor_work(&p); /* sets this thread's budget to the children's share ... */
    budget = saved; /* ... put it back */
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&p.mu);
    if (p.status != FB_OK) fb_error("%s", p.msg);
    return p.status;
}
