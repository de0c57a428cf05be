/*
 * sys: raw i386 system calls through `int $0x80`, for a binary without libc.
 *
 * Every wrapper returns what the kernel returns: a result >= 0, or -errno.
 * There is no errno variable.  Numbers and structures come from the kernel's
 * UAPI headers (linux-libc-dev), which need no libc.
 */
#ifndef GT_SYS_H
#define GT_SYS_H

#include <stddef.h>

#include <asm/signal.h>
#include <asm/unistd.h>
#include <linux/reboot.h>
#include <linux/resource.h>
#include <linux/time.h>
#include <linux/time_types.h>

/* The five-argument form covers every call here; a sixth would need %ebp. */
static inline long sys_call5(long nr, long a1, long a2, long a3, long a4, long a5)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a1), "c"(a2), "d"(a3), "S"(a4), "D"(a5)
			 : "memory");
	return ret;
}

static inline long sys_call3(long nr, long a1, long a2, long a3)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a1), "c"(a2), "d"(a3)
			 : "memory");
	return ret;
}

static inline long sys_write(int fd, const void *buf, size_t len)
{
	return sys_call3(__NR_write, fd, (long)buf, (long)len);
}

static inline long sys_read(int fd, void *buf, size_t len)
{
	return sys_call3(__NR_read, fd, (long)buf, (long)len);
}

static inline long sys_open(const char *path, int flags)
{
	return sys_call3(__NR_open, (long)path, flags, 0);
}

static inline long sys_mount(const char *source, const char *target, const char *type)
{
	return sys_call5(__NR_mount, (long)source, (long)target, (long)type, 0, 0);
}

static inline long sys_close(int fd)
{
	return sys_call3(__NR_close, fd, 0, 0);
}

/* fds[0] is the read end, fds[1] the write end. */
static inline long sys_pipe(int fds[2])
{
	return sys_call3(__NR_pipe, (long)fds, 0, 0);
}

static inline long sys_dup2(int old_fd, int new_fd)
{
	return sys_call3(__NR_dup2, old_fd, new_fd, 0);
}

static inline long sys_finit_module(int fd, const char *params, int flags)
{
	return sys_call3(__NR_finit_module, fd, (long)params, flags);
}

static inline long sys_ioctl(int fd, unsigned int cmd, long arg)
{
	return sys_call3(__NR_ioctl, fd, (long)cmd, arg);
}

static inline __attribute__((noreturn)) void sys_exit_group(int status)
{
	sys_call3(__NR_exit_group, status, 0, 0);
	__builtin_unreachable();
}

static inline long sys_fork(void)
{
	return sys_call3(__NR_fork, 0, 0, 0);
}

static inline long sys_execve(const char *path, char *const argv[], char *const envp[])
{
	return sys_call3(__NR_execve, (long)path, (long)argv, (long)envp);
}

static inline long sys_wait4(int pid, int *status, int options, struct rusage *usage)
{
	return sys_call5(__NR_wait4, pid, (long)status, options, (long)usage, 0);
}

static inline long sys_kill(int pid, int sig)
{
	return sys_call3(__NR_kill, pid, sig, 0);
}

static inline long sys_getpid(void)
{
	return sys_call3(__NR_getpid, 0, 0, 0);
}

static inline long sys_setpgid(int pid, int pgid)
{
	return sys_call3(__NR_setpgid, pid, pgid, 0);
}

static inline long sys_prctl(int option, unsigned long arg2)
{
	return sys_call5(__NR_prctl, option, (long)arg2, 0, 0, 0);
}

static inline long sys_getrusage(int who, struct rusage *usage)
{
	return sys_call3(__NR_getrusage, who, (long)usage, 0);
}

/*
 * `act` and `old` are the kernel's struct sigaction, not libc's (see
 * signal.c); 8 is the size of the kernel's sigset_t, as for sigprocmask.
 */
static inline long sys_rt_sigaction(int sig, const void *act, void *old)
{
	return sys_call5(__NR_rt_sigaction, sig, (long)act, (long)old, 8, 0);
}

static inline long sys_rt_sigprocmask(int how, const unsigned long long *set,
				      unsigned long long *old)
{
	return sys_call5(__NR_rt_sigprocmask, how, (long)set, (long)old, 8, 0);
}

/* Seconds left of an earlier alarm; 0 cancels.  Needs CONFIG_POSIX_TIMERS. */
static inline long sys_alarm(unsigned int seconds)
{
	return sys_call3(__NR_alarm, (long)seconds, 0, 0);
}

/* ITIMER_REAL and the others, at microseconds (struct itimerval of <linux/time.h>). */
static inline long sys_setitimer(int which, const struct itimerval *value, struct itimerval *old)
{
	return sys_call3(__NR_setitimer, which, (long)value, (long)old);
}

/* The _time64 calls: with COMPAT_32BIT_TIME off, the old ones are ENOSYS. */
static inline long sys_clock_gettime64(int clock, struct __kernel_timespec *ts)
{
	return sys_call3(__NR_clock_gettime64, clock, (long)ts, 0);
}

static inline long sys_clock_nanosleep_time64(int clock, int flags,
					      const struct __kernel_timespec *req,
					      struct __kernel_timespec *rem)
{
	return sys_call5(__NR_clock_nanosleep_time64, clock, flags, (long)req, (long)rem, 0);
}

static inline long sys_reboot(unsigned int cmd)
{
	return sys_call5(__NR_reboot, (long)LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, (long)cmd, 0, 0);
}

/*
 * mmap through old_mmap (__NR_mmap on i386), which takes its six
 * arguments in memory: mmap2 would need a sixth register.  The address, or
 * -errno.
 */
static inline long sys_mmap(void *addr, size_t len, int prot, int flags, int fd, long offset)
{
	const unsigned long args[6] = { (unsigned long)addr, len, (unsigned long)prot,
					(unsigned long)flags, (unsigned long)fd,
					(unsigned long)offset };

	return sys_call3(__NR_mmap, (long)args, 0, 0);
}

static inline long sys_munmap(void *addr, size_t len)
{
	return sys_call3(__NR_munmap, (long)addr, (long)len, 0);
}

/* -ENOSYS on kernels without CONFIG_ADVISE_SYSCALLS (tinyconfig's). */
static inline long sys_madvise(void *addr, size_t len, int advice)
{
	return sys_call3(__NR_madvise, (long)addr, (long)len, advice);
}

/* `ss` and `old` are the kernel's stack_t (<asm/signal.h>). */
static inline long sys_sigaltstack(const stack_t *ss, stack_t *old)
{
	return sys_call3(__NR_sigaltstack, (long)ss, (long)old, 0);
}

static inline long sys_ftruncate(int fd, long length)
{
	return sys_call3(__NR_ftruncate, fd, length, 0);
}

static inline long sys_lseek(int fd, long offset, int whence)
{
	return sys_call3(__NR_lseek, fd, offset, whence);
}

/* mode holds the file type too (S_IFCHR | 0600); dev is (major << 8) | minor for small numbers. */
static inline long sys_mknod(const char *path, int mode, unsigned dev)
{
	return sys_call3(__NR_mknod, (long)path, mode, (long)dev);
}

static inline long sys_clock_settime64(int clock, const struct __kernel_timespec *ts)
{
	return sys_call3(__NR_clock_settime64, clock, (long)ts, 0);
}

static inline long sys_mkdir(const char *path, int mode)
{
	return sys_call3(__NR_mkdir, (long)path, mode, 0);
}

/* Fills buf with the kernel's struct linux_dirent64 records.  Bytes filled, 0 at the end. */
static inline long sys_getdents64(int fd, void *buf, size_t len)
{
	return sys_call3(__NR_getdents64, fd, (long)buf, (long)len);
}

static inline long sys_rmdir(const char *path)
{
	return sys_call3(__NR_rmdir, (long)path, 0, 0);
}

static inline long sys_chdir(const char *path)
{
	return sys_call3(__NR_chdir, (long)path, 0, 0);
}

static inline long sys_unlink(const char *path)
{
	return sys_call3(__NR_unlink, (long)path, 0, 0);
}

static inline long sys_setrlimit(int resource, const struct rlimit *limit)
{
	return sys_call3(__NR_setrlimit, resource, (long)limit, 0);
}

static inline long sys_ptrace(long request, int pid, unsigned long addr, unsigned long data)
{
	return sys_call5(__NR_ptrace, request, pid, (long)addr, (long)data, 0);
}

#endif
