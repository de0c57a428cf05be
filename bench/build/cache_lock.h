/*
 * cache_lock: one bench at a time in a cache.  The lock is flock() on
 * <cache>/lock, which holds the holder's pid for a waiter to name; it is
 * dropped when its descriptor is closed (cache_unlock(), or the process's
 * end, so a killed bench leaves no stale lock).
 */
#ifndef FPUBENCH_CACHE_LOCK_H
#define FPUBENCH_CACHE_LOCK_H

/*
 * Takes the cache's lock into *fd, waiting for another bench (saying so
 * once, through notice()).  main()'s handlers are installed without
 * SA_RESTART, so SIGINT and SIGTERM end the wait: ERR_INTERRUPTED.
 * ERR_CACHE when the cache is not writable.
 */
int cache_lock(const char *cache, int *fd);

/* Drops the lock *fd holds, if any, and sets *fd to -1. */
void cache_unlock(int *fd);

#endif
