#include "crash.h"

#include "lib/ctype.h"
#include "lib/strbuf.h"

#include <pthread.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUNC_MAX 96		/* bytes of a function name that are kept */
#define CTX_MAX 16		/* bytes of a caller id ("T12345", "C3") */
#define PANIC_NEAR 100		/* a panic this close to a report is its consequence */
#define PANIC_CUTS 22		/* a report longer than this ends at a panic (its stack is the panic's) */

/*
 * Where a title's FUNC comes from, as in syzkaller: a report's parts are
 * looked for in order, each on the lines after the previous one's.
 */
enum part_kind {
	P_END,
	P_RIP,		/* the first "RIP: 0010:f+0x1/0x2" / "EIP: f+..." / "pc : f+...": f */
	P_TRACE,	/* a "Call Trace:" line */
	P_FRAMES,	/* the frames that follow, up to the next stack's start */
	P_LINE,		/* a line holding one of the '|'-separated needles */
	P_CAPTURE,	/* a line holding the needle, then "[<pc>] " and f+... : f */
};

struct part {
	enum part_kind kind;
	const char *needle;
};

#define RIP { P_RIP, NULL }
#define TRACE { P_TRACE, NULL }
#define FRAMES { P_FRAMES, NULL }
#define LINE(s) { P_LINE, s }
#define AT(s) { P_CAPTURE, s }

/* Which of the frames found names the report. */
enum extractor {
	EX_FIRST,	/* the first one not skipped */
	EX_STALL,	/* the one before the first dispatcher (syscall, workqueue...): lockups, stalls */
	EX_HUNG,	/* the first that is not a sleep or lock helper: hung tasks */
};

enum {
	F_CORRUPTED = 1,	/* such a title is always the sign of a cut report */
	F_CONTINUES = 2,	/* inside a report of its context the line continues it */
	F_PANIC = 4,		/* a report only far from other reports (see crash.h) */
	F_HEADER_FUNC = 8,	/* no frame: the function on the first line, if any */
	F_ACCESS = 16,		/* %A is "Read" or "Write" from a later line (KASAN) */
	F_START = 32,		/* only at the start of the line, after its prefixes */
};

/*
 * A kind of report: the first format whose header occurs in a line (as a
 * word: "DEBUG:" is not "BUG:") and whose `re` (POSIX ERE, from the header
 * on) matches begins a report.  The title is `title` with %1 and %2 the
 * re's groups, %F the frame, %A the access, %K a die() line's kind and %L
 * the line from the header on.  `skip` adds frames to skip_frames.
 */
struct format {
	const char *header;
	const char *re;
	const char *title;
	struct part parts[4];
	struct part parts2[3];	/* tried when `parts` find no frame */
	const char *skip;
	enum extractor ex;
	unsigned flags;
};

#define STACK_RIP .parts = { RIP, TRACE, FRAMES }
#define STACK_TRACE .parts = { TRACE, FRAMES }
/* A WARNING's frame: its RIP, else the frames after the RIP, else the call trace's. */
#define STACK_WARN .parts = { RIP, FRAMES }, .parts2 = { TRACE, FRAMES }
#define SRC "[a-zA-Z0-9_/.-]+\\.[a-z]+:[0-9]+"
#define FUNC "[a-zA-Z0-9_]+[.+]"
#define PANIC "Kernel panic - not syncing: "

static const struct format formats[] = {
	/* Sanitizers. */
	{ "BUG: KASAN:", "^BUG: KASAN: (double-free or invalid-free|double-free|invalid-free) in ",
	  "KASAN: invalid-free in %F", .parts = { AT(" in "), TRACE, FRAMES },
	  .skip = "slab_|kfree|vunmap|vfree" },
	{ "BUG: KASAN:", "^BUG: KASAN: ([a-z-]+) in ", "KASAN: %1 %A in %F",
	  .parts = { AT(" in "), TRACE, FRAMES }, .skip = "kernel_fault|tag_check|mem_abort|^el1_|^el1h_",
	  .flags = F_ACCESS },
	{ "BUG: KASAN:", "^BUG: KASAN: (.*)$", "KASAN: %1", .flags = F_CORRUPTED },
	{ "BUG: KMSAN:", "^BUG: KMSAN: ([a-z-]+) in ", "KMSAN: %1 in %F", .parts = { FRAMES },
	  .skip = "alloc_skb|netlink_ack|netlink_rcv_skb" },
	{ "BUG: KCSAN:", "^BUG: KCSAN: (.*)$", "KCSAN: %1" },
	{ "BUG: KFENCE:", "^BUG: KFENCE: (use-after-free|out-of-bounds) [a-z-]+ in ", "KFENCE: %1 in %F",
	  .parts = { AT(" in "), FRAMES } },
	{ "UBSAN: Undefined behaviour in", NULL, "UBSAN: undefined-behaviour in %F", STACK_TRACE,
	  .skip = "ubsan|overflow" },
	{ "UBSAN: ", "^UBSAN: ([a-z-]+) in ", "UBSAN: %1 in %F", STACK_TRACE, .skip = "ubsan|overflow" },

	/* BUG: */
	{ "BUG: ", "^BUG: (unable to handle kernel paging request|unable to handle page fault for address"
	  "|Unable to handle kernel data access)", "BUG: unable to handle kernel paging request in %F",
	  STACK_RIP },
	{ "BUG: ", "^BUG: (unable to handle kernel NULL pointer dereference|kernel NULL pointer dereference"
	  "|Kernel NULL pointer dereference)", "BUG: unable to handle kernel NULL pointer dereference in %F",
	  STACK_RIP },
	{ "BUG: ", "^BUG: (unable to handle kernel|Unable to handle kernel)", "BUG: unable to handle kernel",
	  .flags = F_CORRUPTED },
	{ "BUG: ", "^BUG: (spinlock|rwlock) (lockup suspected|already unlocked|recursion|cpu recursion"
	  "|bad magic|wrong owner|wrong CPU|trylock failure on UP)", "BUG: %1 %2 in %F", STACK_TRACE,
	  .skip = "spin_|_lock|_unlock" },
	{ "BUG: soft lockup", NULL, "BUG: soft lockup in %F", STACK_RIP, .ex = EX_STALL },
	{ "BUG: scheduling while atomic", NULL, "BUG: scheduling while atomic in %F", STACK_TRACE,
	  .skip = "schedule" },
	{ "BUG: sleeping function called from invalid context", NULL,
	  "BUG: sleeping function called from invalid context in %F", STACK_TRACE },
	{ "BUG: using ", "^BUG: using ([a-z_]+)\\(\\) in preemptible", "BUG: using %1() in preemptible code in %F",
	  STACK_TRACE, .skip = "dump_stack|preemption|preempt|debug_|processor_id|this_cpu" },
	{ "BUG: bad unlock balance detected!", NULL, "BUG: bad unlock balance in %F",
	  .parts = { AT(">] "), TRACE, FRAMES } },
	{ "BUG: held lock freed!", NULL, "BUG: held lock freed in %F", .parts = { AT(">] ") } },
	{ "BUG: ", "^BUG: .*still has locks held!", "BUG: still has locks held in %F", .parts = { AT(">] ") } },
	{ "BUG: workqueue leaked lock or atomic", NULL, "BUG: workqueue leaked lock or atomic in %F",
	  .parts = { AT("last function: ") } },
	{ "BUG: memory leak", NULL, "memory leak in %F", .parts = { LINE("backtrace:"), FRAMES },
	  .skip = "kmemleak|mmap|kmem|slab|alloc|create_object|idr_get|list_lru_init|kasprintf|kvasprintf"
		  "|pcpu_create|strdup|strndup|memdup" },
	{ "BUG: ", "^BUG: .*stack guard page was hit at", "BUG: stack guard page was hit in %F", STACK_RIP,
	  .ex = EX_STALL },
	{ "BUG: Invalid wait context", NULL, "WARNING: locking bug in %F", STACK_TRACE,
	  .skip = "lock_sock|release_sock" },
	{ "BUG: Dentry ", "^BUG: Dentry .* still in use \\([0-9]+\\) \\[(unmount) of ",
	  "BUG: Dentry still in use in %1" },
	{ "BUG: Bad rss-counter state", NULL, "BUG: Bad rss-counter state" },
	{ "BUG: non-zero nr_ptes on freeing mm", NULL, "BUG: non-zero nr_ptes on freeing mm" },
	{ "BUG: non-zero nr_pmds on freeing mm", NULL, "BUG: non-zero nr_pmds on freeing mm" },
	{ "BUG: Bad page state", NULL, "BUG: Bad page state" },
	{ "BUG: Bad page map", NULL, "BUG: Bad page map" },
	{ "BUG: workqueue lockup", NULL, "BUG: workqueue lockup" },
	{ "BUG:", "^BUG:[[:space:]]*$", "BUG: corrupted", .flags = F_CORRUPTED },
	{ "BUG:", NULL, "%L", .flags = F_START },

	/* WARNING: */
	{ "WARNING:", "^WARNING: .*lib/debugobjects\\.c.* (debug_print|debug_check)", "WARNING: ODEBUG bug in %F",
	  STACK_WARN, .skip = "debug_|rcu|hrtimer_|timer_|work_|percpu_|vunmap|vfree|__free_|debug_check|kobject_" },
	{ "WARNING:", "^WARNING: .*mm/usercopy\\.c.* usercopy_warn", "WARNING: bad usercopy in %F", STACK_WARN,
	  .skip = "usercopy|__check" },
	{ "WARNING:", "^WARNING: .*lib/kobject\\.c.* kobject_", "WARNING: kobject bug in %F", STACK_WARN,
	  .skip = "kobject_" },
	{ "WARNING:", "^WARNING: .*fs/proc/generic\\.c.* proc_register", "WARNING: proc registration bug in %F",
	  STACK_WARN, .skip = "proc_" },
	{ "WARNING:", "^WARNING: .*lib/refcount\\.c.* refcount_", "WARNING: refcount bug in %F", STACK_WARN,
	  .skip = "refcount|kobject_" },
	{ "WARNING:", "^WARNING: .*kernel/locking/lockdep\\.c.*lock_", "WARNING: locking bug in %F", STACK_WARN,
	  .skip = "lock_sock|release_sock" },
	{ "WARNING:", "^WARNING: .*still has locks held!", "WARNING: still has locks held in %F",
	  .parts = { AT("at: ") } },
	{ "WARNING: Nested lock was not taken", NULL, "WARNING: nested lock was not taken in %F", STACK_WARN },
	{ "WARNING: lock held when returning to user space", NULL,
	  "WARNING: lock held when returning to user space in %F",
	  .parts = { LINE("leaving the kernel with locks still held"), AT("at: ") } },
	{ "WARNING:", "^WARNING: .*mm/.*\\.c.* k?.?malloc", "WARNING: kmalloc bug in %F", STACK_WARN,
	  .skip = "kmalloc|krealloc|slab|kmem" },
	{ "WARNING:", "^WARNING: .*mm/vmalloc\\.c.*__vmalloc_node", "WARNING: zero-size vmalloc in %F", STACK_WARN },
	/* __warn(): "CPU: 0 PID: 1 at FILE:LINE f+0x1/0x2", and since 6.18 "FILE:LINE at f+0x1/0x2, CPU#0". */
	{ "WARNING:", "^WARNING: (.* )?at (" SRC " )?" FUNC, "WARNING in %F", STACK_WARN, .flags = F_HEADER_FUNC },
	{ "WARNING:", "^WARNING: " SRC " at " FUNC, "WARNING in %F", STACK_WARN, .flags = F_HEADER_FUNC },
	{ "WARNING:", "^WARNING: (.* )?at " SRC, "WARNING in %F", STACK_WARN },
	{ "WARNING: possible circular locking dependency detected", NULL, "possible deadlock in %F",
	  .parts = { AT("at: "), AT("at: "), FRAMES },
	  .skip = "process_one_work|flush_workqueue|drain_workqueue|destroy_workqueue" },
	{ "WARNING: possible irq lock inversion dependency detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("just changed the state of lock"), AT("at: ") } },
	{ "WARNING:", "^WARNING: .*-safe -> .*-unsafe lock order detected", "possible deadlock in %F",
	  .parts = { LINE("which became "), FRAMES } },
	{ "WARNING: possible recursive locking detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("is trying to acquire lock"), AT("at: ") } },
	{ "WARNING: inconsistent lock state", NULL, "inconsistent lock state in %F",
	  .parts = { LINE("takes"), AT("at: ") } },
	{ "WARNING: suspicious RCU usage", NULL, "WARNING: suspicious RCU usage in %F", STACK_TRACE,
	  .skip = "rcu|kmem|slab" },
	{ "WARNING: kernel stack regs at", "has bad '([^']+)' value", "WARNING: kernel stack regs has bad '%1' value" },
	{ "WARNING: kernel stack frame pointer at", NULL, "WARNING: kernel stack frame pointer has bad value" },
	{ "WARNING: bad unlock balance detected!", NULL, "WARNING: bad unlock balance in %F",
	  .parts = { AT(">] "), TRACE, FRAMES } },
	{ "WARNING: held lock freed!", NULL, "WARNING: held lock freed in %F", .parts = { AT("at: ") } },
	{ "WARNING:", "^WARNING:[[:space:]]*$", "WARNING: corrupted", .flags = F_CORRUPTED },
	{ "WARNING:", NULL, "%L", .flags = F_START },

	/* INFO: (lockdep's old headers, stalls, hung tasks) */
	{ "INFO: possible circular locking dependency detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("is trying to acquire lock"), AT("at: ") } },
	{ "INFO: possible irq lock inversion dependency detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("just changed the state of lock"), AT("at: ") } },
	{ "INFO: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("is trying to acquire"), AT("at: ") } },
	{ "INFO: possible recursive locking detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("is trying to acquire lock"), AT("at: ") } },
	{ "INFO: inconsistent lock state", NULL, "inconsistent lock state in %F",
	  .parts = { LINE("takes"), AT("at: ") } },
	{ "INFO: rcu_", "^INFO: rcu_(preempt|sched|bh) (self-)?detected( expedited)? stall",
	  "INFO: rcu detected stall in %F", .parts = { LINE("apic_timer_interrupt"), RIP, FRAMES },
	  .parts2 = { LINE("apic_timer_interrupt|Exception stack|el1h_64_irq"), FRAMES },
	  .skip = "apic_timer_interrupt|rcu", .ex = EX_STALL },
	{ "INFO: trying to register non-static key", NULL, "INFO: trying to register non-static key in %F",
	  STACK_TRACE, .skip = "stack|lock|IRQ" },
	{ "INFO: suspicious RCU usage", NULL, "INFO: suspicious RCU usage in %F", STACK_TRACE,
	  .skip = "rcu|kmem|slab" },
	{ "INFO: task ", "^INFO: task .* blocked (in I/O wait )?for more than [0-9]+ seconds", "INFO: task hung in %F",
	  STACK_TRACE, .ex = EX_HUNG },
	{ "INFO: task ", "^INFO: task .* can't die for more than .* seconds", "INFO: task can't die in %F",
	  STACK_TRACE, .skip = "schedule" },
	{ "INFO: ", "^INFO: (Freed|Allocated) in (.*)$", "INFO: %1 in %2", .flags = F_CORRUPTED },
	{ "INFO:", "^INFO:[[:space:]]*$", "INFO: corrupted", .flags = F_CORRUPTED },
	{ "INFO:", NULL, "%L", .flags = F_START },

	/* Traps and faults. */
	{ "Unable to handle kernel ", "^Unable to handle kernel (paging request|NULL pointer dereference"
	  "|access to user memory)", "BUG: unable to handle kernel %1 in %F", STACK_RIP, .flags = F_START },
	{ "general protection fault", "^general protection fault.*:", "general protection fault in %F", STACK_RIP },
	{ "stack segment: ", NULL, "stack segment fault in %F", STACK_RIP },
	{ "PANIC: double fault", NULL, "PANIC: double fault in %F", .parts = { RIP }, .flags = F_CONTINUES },
	{ "kernel BUG at mm/usercopy.c", NULL, "BUG: bad usercopy in %F", STACK_TRACE, .skip = "usercopy|__check" },
	{ "kernel BUG at lib/list_debug.c", NULL, "BUG: corrupted list in %F", STACK_TRACE },
	{ "kernel BUG at ", NULL, "kernel BUG in %F", STACK_RIP, .skip = "^skb_" },
	{ "Kernel BUG ", "^Kernel BUG (.*)$", "kernel BUG %1" },
	{ "BUG kmalloc-", "^BUG kmalloc-.*: Object already free", "BUG: Object already free" },
	{ "divide error: ", NULL, "divide error in %F", .parts = { RIP } },
	{ "divide_error: ", NULL, "divide error in %F", .parts = { RIP } },
	{ "invalid opcode: ", NULL, "invalid opcode in %F", .parts = { RIP }, .flags = F_CONTINUES },
	{ "Internal error:", NULL, "Internal error in %F", STACK_RIP, .flags = F_CONTINUES | F_START },

	/* Panics: of their own only without a report before (see crash.h). */
	{ PANIC "stack-protector:", NULL, "kernel panic: stack is corrupted in %F",
	  .parts = { AT("corrupted in: ") }, .parts2 = { TRACE, FRAMES }, .skip = "stack_chk",
	  .flags = F_PANIC | F_CONTINUES },
	{ PANIC "corrupted stack end", NULL, "kernel panic: corrupted stack end in %F", STACK_TRACE,
	  .skip = "schedule|retint_kernel", .ex = EX_STALL, .flags = F_PANIC | F_CONTINUES },
	{ PANIC "kernel stack overflow", NULL, "kernel stack overflow in %F", STACK_TRACE, .skip = "bad_stack",
	  .ex = EX_STALL, .flags = F_PANIC | F_CONTINUES },
	{ PANIC "Attempted to kill init!", NULL, "kernel panic: Attempted to kill init!",
	  .flags = F_PANIC | F_CONTINUES },
	{ PANIC "Couldn't open N_TTY ldisc", NULL, "kernel panic: Couldn't open N_TTY ldisc",
	  .flags = F_PANIC | F_CONTINUES },
	{ PANIC "Fatal exception", NULL, "kernel panic: Fatal exception",
	  .flags = F_PANIC | F_CONTINUES | F_CORRUPTED },
	{ PANIC "panic_on_warn set", NULL, "kernel panic: panic_on_warn set",
	  .flags = F_PANIC | F_CONTINUES | F_CORRUPTED },
	{ PANIC "hung_task: blocked tasks", NULL, "kernel panic: hung_task: blocked tasks",
	  .flags = F_PANIC | F_CONTINUES | F_CORRUPTED },
	{ PANIC, "^" PANIC "(.*)$", "kernel panic: %1", .flags = F_PANIC | F_CONTINUES },

	/* Others syzkaller knows. */
	{ "unregister_netdevice: waiting for ", "^unregister_netdevice: waiting for .* to become free",
	  "unregister_netdevice: waiting for DEV to become free" },
	{ "VFS: Close: file count is 0", NULL, "VFS: Close: file count is zero (use-after-free)" },
	{ "VFS: Busy inodes after unmount", NULL, "VFS: Busy inodes after unmount (use-after-free)" },
};

/* Any other die() line, "STR: 0000 [#1] ...": "STR in FUNC" (this bench's "fpu exception"). */
static const struct format die_format = { NULL, NULL, "%K in %F", STACK_RIP, .flags = F_CONTINUES };

/*
 * Lines that hold a header and are no report (syzkaller's list, and
 * printk's own framing): an ERE, tried when the line holds its needle.
 */
static const struct {
	const char *needle, *re;
} ignores[] = {
	{ "BUG: no syscalls", "BUG: no syscalls can create resource" },
	{ "WARNING: /etc/ssh", "WARNING: /etc/ssh/moduli does not exist, using fixed modulus" },
	{ "WARNING: workqueue", "WARNING: workqueue cpumask: online intersect > possible intersect" },
	{ "he mand mount option", "WARNING: [Tt]he mand mount option (is being|has been) deprecated" },
	{ "WARNING: Unsupported", "WARNING: Unsupported flag value\\(s\\) of 0x%x in DT_FLAGS_1" },
	{ "WARNING: Unprivileged", "WARNING: Unprivileged eBPF is enabled with eIBRS" },
	{ "WARNING: fbcon", "WARNING: fbcon: Driver '.*' missed to adjust virtual screen size" },
	{ "WARNING: See https", "WARNING: See https.* for mitigation options" },
	{ "WARNING: kernel not", "WARNING: kernel not compiled with CPU_SRSO" },
	{ "INFO: lockdep", "INFO: lockdep is turned off" },
	{ "INFO: Stall ended", "INFO: Stall ended before state dump start" },
	{ "INFO: NMI handler", "INFO: NMI handler" },
	{ "INFO: recovery", "INFO: recovery required on readonly filesystem" },
	{ "took too long", "(handler|interrupt).*took too long" },
	{ "INFO: sys_", "INFO: sys_.* is not present in /proc/kallsyms" },
	{ "INFO: no syscalls", "INFO: no syscalls can create resource" },
	/* A user program's trap: "traps: a[1] general protection fault ip:.. sp:.. error:0 [in ..]". */
	{ "general protection fault ", "general protection fault (ip:|.* error:[0-9]+ in )" },
	{ "---[ end Kernel panic", "^---\\[ end Kernel panic" },
	{ "ommand line:", "^(Kernel )?[Cc]ommand line:" },
};

/*
 * Frames no title is named after: reporting, trap, locking, allocation and
 * sanitizer helpers, library routines (syzkaller's list, as ERE
 * alternatives matched anywhere in the function's name unless anchored).
 */
static const char *const skip_frames[] = {
	"__sanitizer", "__asan", "kasan", "__msan", "kmsan", "kcsan_setup_watchpoint",
	"check_memory_region", "check_heap_object", "check_object", "read_word_at_a_time",
	"(read|write)_once_.*nocheck", "print_address_description", "panic", "invalid_op",
	"report_bug", "fixup_bug", "print_report", "print_usage_bug", "do_error", "_trap$|do_trap",
	"show_stack", "dump_stack", "walk_stack", "dump_backtrace", "warn_slowpath", "warn_alloc",
	"warn_bogus", "__warn", "alloc_page", "k?v?(m|z|c)alloc", "krealloc", "kmem_cache",
	"allocate_slab", "folio_alloc", "filemap_alloc_folio", "__filemap_get_folio",
	"find_or_create_page", "do_read_cache_folio", "read_cache_page", "pagecache_get_page",
	"grab_cache_page_write_begin", "slab_", "debug_object", "timer_is_static_object",
	"work_is_static_object", "__might_fault", "print_unlock", "imbalance_bug", "lockdep",
	"bh_enable", "bh_disable", "perf_trace", "lock_acquire", "lock_release", "lock_class",
	"mark_lock", "(reacquire|mark)_held_locks", "raw_spin_rq", "spin_lock", "spin_trylock",
	"spin_unlock", "read_lock", "read_trylock", "write_lock", "write_trylock", "read_unlock",
	"write_unlock", "^down$", "down_read", "down_write", "down_trylock", "up_read", "up_write",
	"^mutex_", "^__mutex_", "^rt_mutex_", "owner_on_cpu", "osq_lock", "osq_unlock",
	"atomic(64)?_(dec|inc|read|set|or|xor|and|add|sub|fetch|xchg|cmpxchg|try)",
	"(set|clear|change|test)_bit", "__wake_up", "^refcount_", "^kref_", "ref_tracker",
	"seqprop_assert", "memcpy", "memcmp", "memset", "memchr", "memmove", "memdup", "strcmp",
	"strncmp", "strcpy", "strlcpy", "strncpy", "strscpy", "strlen", "strstr", "strnstr",
	"strnlen", "strchr", "strdup", "strndup", "copy_to_user", "copy_from_user", "copy_to_iter",
	"copy_from_iter", "copy_page_to_iter", "copy_page_from_iter", "copy_folio_to_iter",
	"^copyin$", "^copyout$", "put_user", "get_user", "might_fault", "might_sleep", "list_add",
	"list_del", "list_replace", "list_move", "list_splice", "^rb_", "^__rb_", "_indirect_thunk_",
	"string", "pointer", "snprintf", "scnprintf", "kasprintf", "kvasprintf", "printk",
	"va_format", "dev_info", "dev_notice", "dev_warn", "dev_err", "dev_alert", "dev_crit",
	"dev_emerg", "program_check_exception", "program_check_common", "del_timer", "flush_work",
	"__cancel_work_timer", "cancel_work_sync", "try_to_grab_pending", "flush_workqueue",
	"drain_workqueue", "destroy_workqueue", "queue_work", "finish_wait", "kthread_stop",
	"kobject_", "add_uevent_var", "get_device_parent", "device_add", "device_del",
	"device_unregister", "device_destroy", "device_release", "devres_release_all",
	"hwrng_unregister", "i2c_del_adapter", "__unregister_client", "device_for_each_child",
	"rollback_registered", "unregister_netdev", "sysfs_remove", "device_remove_file",
	"tty_unregister_device", "dummy_urb_enqueue", "usb_kill_urb", "usb_kill_anchored_urbs",
	"usb_control_msg", "usb_hcd_submit_urb", "usb_submit_urb", "^complete$",
	"wait_for_completion", "^kv?free$", "kfree_skb", "readb$", "readw$", "readl$", "readq$",
	"writeb$", "writew$", "writel$", "writeq$", "logic_in", "logic_out", "^crc[0-9]+",
	"crc_itu_t", "__might_resched", "assertfail", "^iput$", "^iput_final$", "^ihold$",
	"hex_dump_to_buffer", "print_hex_dump", "^klist_", "(trace|lockdep)_(hard|soft)irq",
	"^(un)?lock_page", "stack_trace_consume_entry", "arch_stack_walk", "stack_trace_save",
	"insert_work", "__queue_delayed_work", "queue_delayed_work_on",
	"do_(kernel|translation)_fault", "do_mem_abort", "el1_abort", "el1h_64_sync(_handler)?",
	"print_tainted", "xas_(start|load|find)", "find_lock_entries", "truncate_inode_pages_range",
	"^(drop|inc|clear|set)_nlink$",
};

/* Where a stall's code dispatched the work that looped (EX_STALL). */
static const char stall_anchors[] =
	"process_one_work|do_syscall_|do_fast_syscall_|sysenter_dispatch|tracesys_phase2"
	"|el0_svc_handler|invoke_syscall|ret_fast_syscall|netif_receive_skb|do_softirq|call_timer_fn"
	"|_run_timers|run_timer_softirq|hrtimer_run|run_ksoftirqd|smpboot_thread_fn|^kthread$"
	"|start_secondary|cpu_startup_entry|ret_from_fork|vfs_write|vfs_read|vfs_iter_read"
	"|vfs_iter_write|do_iter_read|do_iter_write|call_read_iter|call_write_iter|new_sync_read"
	"|new_sync_write|vfs_ioctl|ksys_ioctl|compat_ioctl|compat_sys_ioctl|blkdev_driver_ioctl"
	"|blkdev_ioctl|do_iter_readv_writev|^call_mmap|mmap_region|do_mmap|do_dentry_open|vfs_open"
	"|^sock_sendmsg|^sock_recvmsg|^sock_release|^__sock_release|^setsockopt$|kernel_setsockopt"
	"|sock_common_setsockopt|^listen$|kernel_listen|sk_common_release|^sock_mmap|^accept$"
	"|kernel_accept|^sock_do_ioctl|^sock_ioctl|^compat_sock_ioctl|^nfnetlink_rcv_msg"
	"|^rtnetlink_rcv_msg|^netlink_dump|^(sys_)?(socketpair|connect|ioctl)|__do_fault"
	"|do_page_fault|^page_fault$|__fput|task_work_run|exit_to_usermode|smp_call_function"
	"|tasklet_action|tasklet_hi_action";

/* A hung task's frames that only wait (EX_HUNG), and the waits that name the hang themselves. */
static const char *const hung_skip[] = {
	"sched", "_lock", "_slowlock", "down", "rwsem", "completion", "kthread", "wait",
	"synchronize", "context_switch", "__switch_to", "cancel_delayed_work", "rcu_barrier",
};

/* Syscall wrappers' prefixes: a frame is named after its shortest stripped form. */
static const char *const frame_prefixes[] = {
	"SYSC_", "SyS_", "sys_", "__x64_", "__ia32_", "__arm64_", "____sys_", "___sys_", "__sys_",
	"__se_", "__do_sys_", "compat_SYSC_", "compat_SyS_", "ksys_",
};

/* What a header begins with (may_match()). */
static const char *const header_starts[] = {
	"BUG", "WARNING:", "INFO:", "Internal error:", "UBSAN:", "Unable to handle kernel ",
	"general protection fault", "stack segment: ", "PANIC: double fault", "Kernel panic",
	"Kernel BUG ", "kernel BUG at ", "divide error: ", "divide_error: ", "invalid opcode: ",
	"unregister_netdevice: ", "VFS: ", " [#",
};


#define NFORMATS (sizeof(formats) / sizeof(formats[0]))
#define NIGNORES (sizeof(ignores) / sizeof(ignores[0]))

static struct {
	regex_t re[NFORMATS];
	regex_t skip;			/* skip_frames */
	regex_t format_skip[NFORMATS];	/* each format's own, where it has one */
	regex_t ignore[NIGNORES];
	regex_t anchors;
	bool first[256];		/* the first bytes of header_starts */
} rx;

static pthread_once_t rx_once = PTHREAD_ONCE_INIT;

static void rx_compile(regex_t *re, const char *pattern, int flags)
{
	/* The patterns are this file's: one that does not compile is a bug. */
	if (regcomp(re, pattern, REG_EXTENDED | flags) != 0)
		abort();
}

static void rx_init(void)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(skip_frames) / sizeof(skip_frames[0]); i++)
		strbuf_addf(&sb, "%s(%s)", i ? "|" : "", skip_frames[i]);
	rx_compile(&rx.skip, sb.buf, REG_NOSUB);
	strbuf_release(&sb);
	for (size_t i = 0; i < NFORMATS; i++) {
		if (formats[i].re)
			rx_compile(&rx.re[i], formats[i].re, 0);
		if (formats[i].skip)
			rx_compile(&rx.format_skip[i], formats[i].skip, REG_NOSUB);
	}
	for (size_t i = 0; i < NIGNORES; i++)
		rx_compile(&rx.ignore[i], ignores[i].re, REG_NOSUB);
	rx_compile(&rx.anchors, stall_anchors, REG_NOSUB);
	for (size_t i = 0; i < sizeof(header_starts) / sizeof(header_starts[0]); i++)
		rx.first[(unsigned char)header_starts[i][0]] = true;
}

/* Lines. */

/* A character of a C identifier. */
static bool is_ident(char c)
{
	return ctype_is_alnum(c) || c == '_';
}

static bool eat(const char **p, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(*p, prefix, n) != 0)
		return false;
	*p += n;
	return true;
}

/* "[ 12.345678]", then the caller id "[  T1]"/"[C0]" into ctx; p moves past them. */
static bool eat_timestamp(const char **p, char ctx[CTX_MAX])
{
	const char *q = *p;

	if (*q++ != '[')
		return false;
	while (*q == ' ')
		q++;
	if (!ctype_is_digit(*q))
		return false;
	while (ctype_is_digit(*q))
		q++;
	if (*q++ != '.' || !ctype_is_digit(*q))
		return false;
	while (ctype_is_digit(*q))
		q++;
	if (*q++ != ']')
		return false;
	if (*q == '[') {
		const char *c = q + 1;
		size_t n = 0;

		while (*c == ' ')
			c++;
		if ((*c == 'T' || *c == 'C') && ctype_is_digit(c[1])) {
			ctx[n++] = *c++;
			while (ctype_is_digit(*c) && n < CTX_MAX - 1)
				ctx[n++] = *c++;
			ctx[n] = '\0';
			if (*c == ']')
				q = c + 1;
			else
				ctx[0] = '\0';
		}
	}
	if (*q == ' ')
		q++;
	*p = q;
	return true;
}

/* dmesg -x: "kern  :warn  : " (facility and level, each padded). */
static const char *eat_dmesg_level(const char *p)
{
	const char *q = p;

	for (int field = 0; field < 2; field++) {
		const char *word = q;

		while (*q >= 'a' && *q <= 'z')
			q++;
		if (q == word)
			return p;
		while (*q == ' ')
			q++;
		if (*q++ != ':')
			return p;
		if (field == 0 && *q == ' ')	/* the level follows the colon at once */
			return p;
	}
	return *q == ' ' ? q + 1 : p;
}

/*
 * The text of a log line without its prefixes: "** N printk messages
 * dropped **", syslog's "<N>", a journal's "Mon DD HH:MM:SS host kernel: ",
 * printk's timestamp and caller id (into ctx, "" without one).
 */
static const char *strip_prefixes(const char *p, char ctx[CTX_MAX])
{
	const char *k;

	ctx[0] = '\0';
	if (strncmp(p, "** ", 3) == 0) {
		const char *q = strstr(p, " printk messages dropped ** ");

		if (q)
			p = q + strlen(" printk messages dropped ** ");
	}
	k = strstr(p, " kernel: ");
	if (k && k - p < 64 && !memchr(p, '[', (size_t)(k - p)) && strchr(p, ':') < k)
		p = k + strlen(" kernel: ");
	p = eat_dmesg_level(p);
	if (*p == '<' && ctype_is_digit(p[1])) {
		const char *q = p + 1;

		while (ctype_is_digit(*q))
			q++;
		if (*q == '>')
			p = q + 1;
	}
	if (ctype_is_digit(p[0]) && ctype_is_digit(p[1]) && ctype_is_digit(p[2]) && ctype_is_digit(p[3]) && p[4] == '-') {
		/* A CI log's ISO time, "2026-12-05T20:00:00.123Z ". */
		const char *sp = strchr(p, ' ');

		if (sp && sp - p < 40 && memchr(p, 'T', (size_t)(sp - p)))
			p = sp + 1;
	}
	if (!eat_timestamp(&p, ctx) && p[0] == '[' && p[1] != '<' && !ctype_is_xdigit(p[1])) {
		/* dmesg -T: "[Sat Dec  5 20:00:00 2026] ". */
		const char *e = strstr(p, "] ");

		if (e && e - p < 40)
			p = e + 2;
	}
	return p;
}

/* "f+0x1/0x2" or "f.isra.0+..." at p: f's length (a name followed by '.' or '+'), else 0. */
static size_t func_at(const char *p)
{
	size_t n = 0;

	while (is_ident(p[n]))
		n++;
	return n && (p[n] == '.' || p[n] == '+') ? n : 0;
}

/* "[<c1003527>] " or "[<ffffffff81234567>]" followed by spaces: p moves past it. */
static bool eat_pc(const char **p)
{
	const char *q = *p;

	if (*q++ != '[')
		return false;
	if (*q == '<')
		q++;
	eat(&q, "0x");
	if (!ctype_is_xdigit(*q))
		return false;
	while (ctype_is_xdigit(*q))
		q++;
	if (*q == '>')
		q++;
	if (*q++ != ']')
		return false;
	*p = q;
	return true;
}

/*
 * A stack frame line, " [<pc>] f+0x1/0x2 ...": f's length, or 0.  A
 * questionable frame (" ? f+...", the unwinder's guess) sets *guess.
 */
static size_t frame_at(const char *p, const char **func, bool *guess)
{
	while (*p == ' ' || *p == '\t')
		p++;
	for (int i = 0; i < 2 && *p == '['; i++) {
		if (!eat_pc(&p) || *p != ' ')
			return 0;
		p++;
	}
	*guess = p[0] == '?' && p[1] == ' ';
	if (*guess)
		p += 2;
	*func = p;
	return func_at(p);
}

/* The function after "[<pc>] "s at p, if any. */
static size_t func_after(const char *p, const char **func)
{
	while (*p == ' ')
		p++;
	for (int i = 0; i < 2 && *p == '['; i++) {
		if (!eat_pc(&p))
			return 0;
		while (*p == ' ')
			p++;
	}
	*func = p;
	return func_at(p);
}

/*
 * An instruction pointer line (syzkaller's linuxRipFrame): "RIP: 0010:f+...",
 * "EIP: f+...", "EIP is at f+...", "IP: [<pc>] f+...", "pc : f+...".
 * Returns whether the line is one; *n is f's length, 0 for a bare address.
 */
static bool rip_at(const char *text, const char **func, size_t *n)
{
	static const char *const marks[] = { "IP: ", "IP is at ", "pc : ", "PC is at " };

	*n = 0;
	for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
		for (const char *p = text; (p = strstr(p, marks[m])); p++) {
			const char *q = p + strlen(marks[m]);

			if (ctype_is_digit(*q)) {
				const char *d = q;

				while (ctype_is_digit(*d))
					d++;
				if (*d == ':')
					q = d + 1;
			}
			if (q[0] == '0' && q[1] == 'x' && ctype_is_xdigit(q[2]))
				return true;
			if (strstr(q, "(null)") == q || (*q == '[' && strstr(q, "(null)")))
				return true;
			if ((*n = func_after(q, func)))
				return true;
		}
	}
	return false;
}

static bool is_call_trace(const char *text)
{
	return strstr(text, "Call Trace:") || strstr(text, "Call trace:") || strstr(text, "Backtrace:");
}

/* The start of another stack in a report (syzkaller's stackStartRes). */
static bool is_stack_start(const char *text)
{
	const char *b;

	if (strstr(text, "Call Trace") || strstr(text, "Call trace") || strstr(text, "Allocated:") ||
	    strstr(text, "Freed:") || strstr(text, "Backtrace:") ||
	    strstr(text, "Uninit was stored to memory at"))
		return true;
	if ((b = strstr(text, "Allocated by task ")) || (b = strstr(text, "Freed by task ")))
		return strchr(b, ':') != NULL;
	b = strstr(text, " backtrace:");
	return b && (b == text || b[-1] != 'k');
}

static bool has_needle(const char *text, const char *needles)
{
	char one[64];

	for (const char *p = needles; *p;) {
		size_t n = strcspn(p, "|");

		if (n < sizeof(one)) {
			memcpy(one, p, n);
			one[n] = '\0';
			if (strstr(text, one))
				return true;
		}
		p += n + (p[n] == '|');
	}
	return false;
}

/* Ends of a report's text. */
static bool is_end_marker(const char *text)
{
	if (strncmp(text, "---[ end ", 9) == 0 || strncmp(text, "Rebooting in ", 13) == 0)
		return true;
	/* A sanitizer's closing rule; lockdep's headers use '-'. */
	return strncmp(text, "==========", 10) == 0;
}

/* A die() line, "STR: 0000 [#1] ...": STR (words only, without "Oops: ") into kind. */
static bool die_kind(const char *text, char *kind, size_t size)
{
	for (const char *p = text; (p = strstr(p, " [#")); p++) {
		const char *q = p, *start = text;
		size_t n;

		if (!ctype_is_digit(p[3]))
			continue;
		while (q > text && ctype_is_xdigit(q[-1]))
			q--;
		if (p - q < 4 || q - text < 3 || q[-2] != ':' || q[-1] != ' ')
			continue;
		n = (size_t)(q - 2 - text);
		if (n > 6 && strncmp(start, "Oops: ", 6) == 0)
			start += 6, n -= 6;
		for (size_t i = 0; i < n; i++) {
			if (start[i] == ',') {
				n = i;
				break;
			}
			if (!((start[i] >= 'a' && start[i] <= 'z') || (start[i] >= 'A' && start[i] <= 'Z') ||
			      start[i] == ' '))
				return false;
		}
		if (!n || start[0] == ' ' || n >= size)
			return false;
		memcpy(kind, start, n);
		kind[n] = '\0';
		return true;
	}
	return false;
}

/* The scanner. */

struct frames {
	int n;
	char name[CRASH_FRAMES][FUNC_MAX];
};

struct open_report {
	bool used;
	size_t index;		/* into s->reports */
	const struct format *f;
	const regex_t *skip;	/* the format's own frames to skip, or NULL */
	char ctx[CTX_MAX];
	char args[2][CRASH_TITLE_MAX + 1];	/* %1, %2 */
	char line[CRASH_TITLE_MAX + 1];		/* %L */
	char kind[64];				/* %K */
	char access[8];				/* %A */
	char header_func[FUNC_MAX];
	int part[2];		/* progress in f->parts and f->parts2 */
	struct frames frames[2];	/* parts[i]'s reliable frames */
	struct frames guessed[2];	/* and with the questionable ones, for a trace that has no other */
	bool after_frame[2];	/* the last line of parts[i]'s frames was a frame */
	long lines;
	bool complete;		/* its end was seen */
	bool bad_ip;		/* its RIP line had no function: a bare or null address */
};

struct crash_scanner {
	long line_no;
	long fence;		/* line of the last crash_scanner_fence() */
	long last_activity;	/* last line that began or continued a report, 0 if none */
	char buf[CRASH_LINE_MAX + 1];
	struct open_report open[CRASH_OPEN];
	struct crash *reports;
	size_t nreports, alloc;
	size_t dropped;
	bool finished;
};

struct crash_scanner *crash_scanner_new(void)
{
	pthread_once(&rx_once, rx_init);
	return xcalloc(1, sizeof(struct crash_scanner));
}

void crash_scanner_free(struct crash_scanner *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nreports; i++)
		free(s->reports[i].title);
	free(s->reports);
	free(s);
}

static void copy_text(char *dst, size_t size, const char *src, size_t n)
{
	if (n > size - 1)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = ctype_is_print(src[i]) ? src[i] : '?';
	dst[n] = '\0';
}

/* The shortest name the frame has without a syscall wrapper's prefix. */
static const char *strip_frame(const char *frame)
{
	const char *best = frame;

	for (size_t i = 0; i < sizeof(frame_prefixes) / sizeof(frame_prefixes[0]); i++) {
		size_t n = strlen(frame_prefixes[i]);

		if (strncmp(frame, frame_prefixes[i], n) == 0 && frame[n] && strlen(frame + n) < strlen(best))
			best = frame + n;
	}
	return best;
}

/* A frame of parts[which]: every frame goes to its guessed list, a reliable one also to frames. */
static void frame_add(struct open_report *o, int which, const char *func, size_t n, bool guess)
{
	struct frames *lists[2] = { guess ? NULL : &o->frames[which], &o->guessed[which] };
	char name[FUNC_MAX];
	bool named = false, skipped = false;

	for (int l = 0; l < 2; l++) {
		struct frames *fr = lists[l];

		/* The first frame is all that EX_FIRST needs: the rest need not be matched. */
		if (!fr || fr->n == CRASH_FRAMES || (fr->n && o->f->ex == EX_FIRST))
			continue;
		if (!named) {
			copy_text(name, sizeof(name), func, n);
			skipped = regexec(&rx.skip, name, 0, NULL, 0) == 0 ||
				  (o->skip && regexec(o->skip, name, 0, NULL, 0) == 0);
			named = true;
		}
		if (!skipped)
			memcpy(fr->name[fr->n++], name, sizeof(name));
	}
}

/* Moves parts[which] of the report on by one line. */
static void parts_feed(struct open_report *o, int which, const char *text)
{
	const struct part *pl = which ? o->f->parts2 : o->f->parts;
	const struct part *p = &pl[o->part[which]];
	const char *func, *q;
	bool guess = false;
	size_t n;

	switch (p->kind) {
	case P_END:
		return;
	case P_FRAMES:
		if (is_stack_start(text)) {
			o->part[which]++;
		} else if ((n = frame_at(text, &func, &guess))) {
			frame_add(o, which, func, n, guess);
			o->after_frame[which] = true;
			return;
		} else if (o->after_frame[which] && o->guessed[which].n) {
			o->complete = true;	/* the trace has ended: the report is whole */
		}
		o->after_frame[which] = false;
		return;
	case P_RIP:
		if (rip_at(text, &func, &n)) {
			if (n)
				frame_add(o, which, func, n, false);
			o->bad_ip |= !n;
			o->part[which]++;
		}
		return;
	case P_TRACE:
		if (is_call_trace(text))
			o->part[which]++;
		return;
	case P_LINE:
		if (has_needle(text, p->needle))
			o->part[which]++;
		return;
	case P_CAPTURE:
		if ((q = strstr(text, p->needle))) {
			if ((n = func_after(q + strlen(p->needle), &func)))
				frame_add(o, which, func, n, false);
			o->part[which]++;
		}
		return;
	}
}

static bool matches_any(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(name, list[i]))
			return true;
	return false;
}

/* The frame that names the report, or NULL. */
static const char *extract(const struct open_report *o, const struct frames *fr)
{
	const char *prev;

	if (!fr->n)
		return NULL;
	switch (o->f->ex) {
	case EX_FIRST:
		return strip_frame(fr->name[0]);
	case EX_STALL:
		prev = strip_frame(fr->name[0]);
		for (int i = 0; i < fr->n; i++) {
			const char *f = strip_frame(fr->name[i]);

			if (regexec(&rx.anchors, f, 0, NULL, 0) == 0)
				return strstr(f, "smp_call_function") ? "smp_call_function" : prev;
			prev = f;
		}
		return NULL;
	case EX_HUNG:
		for (int i = 0; i < fr->n; i++) {
			const char *f = strip_frame(fr->name[i]);

			if (strstr(f, "rtnl_lock"))
				return f;
			if (strstr(f, "synchronize_rcu") || strstr(f, "synchronize_srcu") ||
			    strstr(f, "synchronize_net") || strstr(f, "synchronize_sched"))
				return "synchronize_rcu";
		}
		for (int i = 0; i < fr->n; i++) {
			const char *f = strip_frame(fr->name[i]);

			if (!matches_any(f, hung_skip, sizeof(hung_skip) / sizeof(hung_skip[0])))
				return f;
		}
		return NULL;
	}
	return NULL;
}

/* "f+0x1/0x2" -> "f": offsets differ between builds, the name does not. */
static void strip_offsets(struct strbuf *sb)
{
	size_t w = 0;

	for (size_t r = 0; r < sb->len;) {
		if (sb->buf[r] == '+' && r && is_ident(sb->buf[r - 1]) && strncmp(sb->buf + r, "+0x", 3) == 0) {
			size_t e = r + 3;

			while (e < sb->len && ctype_is_xdigit(sb->buf[e]))
				e++;
			if (e > r + 3 && strncmp(sb->buf + e, "/0x", 3) == 0 && ctype_is_xdigit(sb->buf[e + 3])) {
				e += 3;
				while (e < sb->len && ctype_is_xdigit(sb->buf[e]))
					e++;
				r = e;
				continue;
			}
		}
		sb->buf[w++] = sb->buf[r++];
	}
	sb->len = w;
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->len--;
	sb->buf[sb->len] = '\0';
}

static char *title_of(const struct open_report *o, bool *corrupted)
{
	struct strbuf sb = STRBUF_INIT;
	const char *frame = extract(o, &o->frames[0]);

	if (!frame)
		frame = extract(o, &o->frames[1]);
	/*
	 * Only guesses ("? f", as every frame of an i386 kernel without frame
	 * pointers is): they name the report unless the instruction pointer
	 * was garbage, where the guesses start from garbage too (syzkaller
	 * calls such a report corrupted).
	 */
	if (!frame && !o->bad_ip)
		frame = extract(o, &o->guessed[0]);
	if (!frame && !o->bad_ip)
		frame = extract(o, &o->guessed[1]);
	if (!frame && (o->f->flags & F_HEADER_FUNC) && o->header_func[0])
		frame = o->header_func;
	if ((o->f->flags & F_ACCESS) && !o->access[0]) {
		/* The access line never came: syzkaller's "KASAN: %1" of a cut report. */
		strbuf_addf(&sb, "KASAN: %s", o->line + strlen("BUG: KASAN: "));
		*corrupted = true;
		goto out;
	}
	for (const char *t = o->f->title; *t; t++) {
		if (*t != '%' || !t[1]) {
			strbuf_addch(&sb, *t);
			continue;
		}
		switch (*++t) {
		case '1': strbuf_addstr(&sb, o->args[0]); break;
		case '2': strbuf_addstr(&sb, o->args[1]); break;
		case 'A': strbuf_addstr(&sb, o->access); break;
		case 'K': strbuf_addstr(&sb, o->kind); break;
		case 'L': strbuf_addstr(&sb, o->line); break;
		case 'F':
			if (!frame)
				*corrupted = true;
			strbuf_addstr(&sb, frame ? frame : "corrupted");
			break;
		default: strbuf_addch(&sb, *t); break;
		}
	}
out:
	strip_offsets(&sb);
	if (sb.len > CRASH_TITLE_MAX) {
		sb.len = CRASH_TITLE_MAX - 3;
		strbuf_addstr(&sb, "...");
	}
	return strbuf_detach(&sb);
}

static void report_close(struct crash_scanner *s, struct open_report *o, bool eof)
{
	struct crash *c = &s->reports[o->index];
	bool corrupted = (o->f->flags & F_CORRUPTED) || (eof && !o->complete);

	c->title = title_of(o, &corrupted);
	c->corrupted = corrupted;
	o->used = false;
}

static struct open_report *report_of(struct crash_scanner *s, const char *ctx)
{
	struct open_report *last = NULL;

	for (int i = 0; i < CRASH_OPEN; i++) {
		struct open_report *o = &s->open[i];

		if (!o->used)
			continue;
		if (ctx[0] && o->ctx[0])
			if (strcmp(o->ctx, ctx) == 0)
				return o;
		if ((!ctx[0] || !o->ctx[0]) && (!last || o->index > last->index))
			last = o;
	}
	return last;
}

/* The line goes to the report o. */
static void report_feed(struct crash_scanner *s, struct open_report *o, const char *text)
{
	o->lines++;
	s->reports[o->index].last_line = s->line_no;
	s->last_activity = s->line_no;
	if ((o->f->flags & F_ACCESS) && !o->access[0]) {
		if (strstr(text, "Read of size") || strstr(text, "Read at addr"))
			strcpy(o->access, "Read");
		else if (strstr(text, "Write of size") || strstr(text, "Write at addr"))
			strcpy(o->access, "Write");
	}
	parts_feed(o, 0, text);
	parts_feed(o, 1, text);
	if (is_end_marker(text) || o->lines >= CRASH_REPORT_LINES) {
		o->complete = true;
		report_close(s, o, false);
	}
}

/* Whether text holds the start of a header at all: one pass, for speed on long logs. */
static bool may_match(const char *text)
{

	for (const char *p = text; *p; p++) {
		if (!rx.first[(unsigned char)*p])
			continue;
		for (size_t i = 0; i < sizeof(header_starts) / sizeof(header_starts[0]); i++)
			if (*p == header_starts[i][0] && strncmp(p, header_starts[i], strlen(header_starts[i])) == 0)
				return true;
	}
	return false;
}

/* The format of a report that text begins, or NULL. */
static const struct format *match(const char *text, regmatch_t m[3], const char **at)
{
	if (!may_match(text))
		return NULL;
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];
		const char *h = strstr(text, f->header);

		while (h && h > text && is_ident(f->header[0]) && is_ident(h[-1]))
			h = strstr(h + 1, f->header);
		if (!h || ((f->flags & F_START) && h != text))
			continue;
		if (f->re && regexec(&rx.re[i], h, 3, m, 0) != 0)
			continue;
		for (size_t k = 0; k < NIGNORES; k++)
			if (strstr(text, ignores[k].needle) && regexec(&rx.ignore[k], text, 0, NULL, 0) == 0)
				return NULL;
		if (!f->re)
			m[1].rm_so = m[2].rm_so = -1;
		*at = h;
		return f;
	}
	return NULL;
}

static void report_begin(struct crash_scanner *s, const struct format *f, const regex_t *skip,
			 const char *text, const char *at, const regmatch_t m[3], const char *ctx,
			 const char *kind)
{
	struct open_report *o = NULL;

	for (int i = 0; i < CRASH_OPEN && !o; i++)
		if (!s->open[i].used)
			o = &s->open[i];
	if (!o) {
		o = &s->open[0];
		for (int i = 1; i < CRASH_OPEN; i++)
			if (s->open[i].index < o->index)
				o = &s->open[i];
		report_close(s, o, false);
	}
	memset(o, 0, sizeof(*o));
	if (s->nreports == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 8;
		s->reports = xrealloc(s->reports, s->alloc * sizeof(*s->reports));
	}
	o->used = true;
	o->index = s->nreports++;
	s->reports[o->index] = (struct crash){ NULL, s->line_no, s->line_no, false };
	o->f = f;
	o->skip = skip;
	snprintf(o->ctx, sizeof(o->ctx), "%s", ctx);
	for (int g = 0; g < 2; g++)
		if (m[g + 1].rm_so >= 0)
			copy_text(o->args[g], sizeof(o->args[g]), at + m[g + 1].rm_so,
				  (size_t)(m[g + 1].rm_eo - m[g + 1].rm_so));
	copy_text(o->line, sizeof(o->line), at, strlen(at));
	snprintf(o->kind, sizeof(o->kind), "%s", kind);
	if (f->flags & F_HEADER_FUNC) {
		const char *p = strstr(at, " at ");

		for (; p; p = strstr(p + 1, " at ")) {
			const char *func, *src_end = strchr(p + 4, ' ');
			size_t n = func_after(p + 4, &func);

			/* "at FILE:LINE f+0x1/0x2" */
			if (!n && src_end)
				n = func_after(src_end + 1, &func);
			if (n) {
				copy_text(o->header_func, sizeof(o->header_func), func, n);
				break;
			}
		}
	}
	s->last_activity = s->line_no;
	report_feed(s, o, text);
}

/*
 * printk cut the previous line and prints it again whole: a report that
 * began on the cut line is forgotten, and the whole line begins it anew.
 */
static void replay(struct crash_scanner *s)
{
	for (int i = 0; i < CRASH_OPEN; i++) {
		struct open_report *o = &s->open[i];

		if (o->used && o->index == s->nreports - 1 && s->reports[o->index].first_line == s->line_no - 1) {
			o->used = false;
			s->nreports--;
		}
	}
}

long crash_scanner_line(struct crash_scanner *s, const char *line, size_t len)
{
	const char *text, *at;
	const struct format *f;
	struct open_report *o;
	regmatch_t m[3];
	char ctx[CTX_MAX], kind[64];
	size_t n = len;

	if (s->finished)
		return -1;
	s->line_no++;
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (n > CRASH_LINE_MAX)
		n = CRASH_LINE_MAX;
	for (size_t i = 0; i < n; i++)
		s->buf[i] = line[i] ? line[i] : '?';
	s->buf[n] = '\0';
	text = strip_prefixes(s->buf, ctx);
	if (strcmp(s->buf, "** replaying previous printk message **") == 0) {
		replay(s);
		return -1;
	}
	o = report_of(s, ctx);
	f = match(text, m, &at);
	if (!f && may_match(text) && die_kind(text, kind, sizeof(kind))) {
		f = &die_format;
		at = text;
		m[1].rm_so = m[2].rm_so = -1;
	}
	if (f && o && (f->flags & F_CONTINUES) && (!o->ctx[0] || !ctx[0] || strcmp(o->ctx, ctx) == 0)) {
		/* After a long report a panic is its end: what follows is the panic's stack. */
		if ((f->flags & F_PANIC) && o->lines > PANIC_CUTS) {
			o->complete = true;
			report_close(s, o, false);
			s->last_activity = s->line_no;
			return -1;
		}
		f = NULL;
	}
	if (f && (f->flags & F_PANIC) && s->last_activity && s->last_activity > s->fence &&
	    s->line_no - s->last_activity <= PANIC_NEAR) {
		s->last_activity = s->line_no;
		return -1;
	}
	if (!f) {
		if (o)
			report_feed(s, o, text);
		return -1;
	}
	if (o && (!o->ctx[0] || !ctx[0] || strcmp(o->ctx, ctx) == 0)) {
		o->complete = true;	/* the next report ends it */
		report_close(s, o, false);
	}
	if (s->nreports == CRASH_MAX_REPORTS) {
		s->dropped++;
		return -1;
	}
	if (f == &die_format)
		report_begin(s, f, NULL, text, at, m, ctx, kind);
	else
		report_begin(s, f, f->skip ? &rx.format_skip[f - formats] : NULL, text, at, m, ctx, "");
	return (long)(s->nreports - 1);
}

void crash_scanner_fence(struct crash_scanner *s)
{
	/* What follows the boundary is no longer the open reports'. */
	for (int i = 0; i < CRASH_OPEN; i++) {
		if (s->open[i].used) {
			s->open[i].complete = true;
			report_close(s, &s->open[i], false);
		}
	}
	s->fence = s->line_no;
}

void crash_scanner_finish(struct crash_scanner *s)
{
	if (s->finished)
		return;
	for (int i = 0; i < CRASH_OPEN; i++)
		if (s->open[i].used)
			report_close(s, &s->open[i], true);
	s->finished = true;
}

size_t crash_scanner_count(const struct crash_scanner *s)
{
	return s->nreports;
}

const struct crash *crash_scanner_report(const struct crash_scanner *s, size_t i)
{
	return i < s->nreports ? &s->reports[i] : NULL;
}

size_t crash_scanner_dropped(const struct crash_scanner *s)
{
	return s->dropped;
}
