#include "crash_table.h"

#include "crash.h"

#include "lib/array.h"
#include "lib/strbuf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define STACK_RIP .parts = { RIP, TRACE, FRAMES }
#define STACK_TRACE .parts = { TRACE, FRAMES }
/* A WARNING's frame: its RIP, else the frames after the RIP, else the call trace's. */
#define STACK_WARN .parts = { RIP, FRAMES }, .parts2 = { TRACE, FRAMES }
#define SRC "[a-zA-Z0-9_/.-]+\\.[a-z]+:[0-9]+"
#define FUNC "[a-zA-Z0-9_]+[.+]"
#define PANIC "Kernel panic - not syncing: "

const struct format crash_formats[] = {
	/* Sanitizers. */
	{ "BUG: KASAN:", "^BUG: KASAN: (double-free or invalid-free|double-free|invalid-free) in ",
	  "KASAN: invalid-free in %F", .parts = { AT(" in "), TRACE, FRAMES },
	  .skip = "slab_|kfree|vunmap|vfree" },
	{ "BUG: KASAN:", "^BUG: KASAN: ([a-z-]+) in ", "KASAN: %1 %A in %F",
	  .parts = { AT(" in "), TRACE, FRAMES }, .skip = "kernel_fault|tag_check|mem_abort|^el1_|^el1h_",
	  .flags = F_ACCESS },
	/* Before 4.11 a wild or null access was "on address ADDR", with no function. */
	{ "BUG: KASAN:", "^BUG: KASAN: ([a-z-]+) on address", "KASAN: %1 %A", .flags = F_ACCESS },
	{ "BUG: KASAN:", "^BUG: KASAN: (.*)$", "KASAN: %1", .flags = F_CORRUPTED },
	/* Older KMSAN reports have a "Call Trace:" line, newer ones the frames at once. */
	{ "BUG: KMSAN:", "^BUG: KMSAN: ([a-z-]+) in ", "KMSAN: %1 in %F", STACK_TRACE, .parts2 = { FRAMES },
	  .skip = "alloc_skb|netlink_ack|netlink_rcv_skb|_encrypt$|^(crypto|cipher|drbg|rng)_"
		  "|^usb_(submit_urb|start_wait_urb|bulk_msg|interrupt_msg|control_msg)$" },
	{ "BUG: KCSAN:", "^BUG: KCSAN: (.*)$", "KCSAN: %1" },
	{ "BUG: KFENCE:", "^BUG: KFENCE: (use-after-free|out-of-bounds) (read|write) in ", "KFENCE: %1 %2 in %F",
	  .parts = { AT(" in "), FRAMES } },
	{ "BUG: KFENCE:", "^BUG: KFENCE: invalid (read|write) in ", "KFENCE: invalid %1 in %F",
	  .parts = { AT(" in "), FRAMES } },
	{ "BUG: KFENCE:", "^BUG: KFENCE: (invalid free|memory corruption) in ", "KFENCE: %1 in %F",
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
	{ "BUG: held lock freed!", NULL, "BUG: held lock freed in %F", .parts = { NAME(">] ") } },
	{ "BUG: ", "^BUG: .*still has locks held!", "BUG: still has locks held in %F", .parts = { NAME(">] ") } },
	{ "BUG: lock held when returning to user space", NULL, "BUG: lock held when returning to user space in %F",
	  .parts = { LINE("leaving the kernel with locks still held"), NAME("at: ") } },
	{ "BUG: workqueue leaked lock or atomic", NULL, "BUG: workqueue leaked lock or atomic in %F",
	  .parts = { NAME("last function: ") } },
	{ "BUG: memory leak", NULL, "memory leak in %F", .parts = { LINE("backtrace:|backtrace (crc "), FRAMES },
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
	/* Named after the page's allocator, from page_owner's stack; without it "in corrupted". */
	{ "BUG: Bad page ", "^BUG: Bad page (state|cache)", "BUG: Bad page %1 in %F",
	  .parts = { LINE("page last allocated"), FRAMES },
	  .skip = "(free|put|get|update|release)_page|free_unref|^_*folio|truncate_inode_pages|page_frag_free"
		  "|alloc|vmap|page_owner" },
	{ "BUG: Bad page map", NULL, "BUG: Bad page map" },
	{ "BUG: workqueue lockup", NULL, "BUG: workqueue lockup" },
	{ "BUG:", "^BUG:[[:space:]]*$", "BUG: corrupted", .flags = F_CORRUPTED },
	{ "BUG:", NULL, "%L", .flags = F_START },

	/* WARNING: (a subsystem's check names its caller; "at" is also the 6.18 form's "FILE:LINE at f") */
	{ "WARNING:", "^WARNING: .*lib/debugobjects\\.c.* (debug_print|debug_check|at)", "WARNING: ODEBUG bug in %F",
	  STACK_WARN, .skip = "debug_|rcu|hrtimer_|timer_|work_|percpu_|vunmap|vfree|__free_|debug_check|kobject_" },
	{ "WARNING:", "^WARNING: .*mm/usercopy\\.c.* (usercopy_warn|at)", "WARNING: bad usercopy in %F", STACK_WARN,
	  .skip = "usercopy|__check" },
	{ "WARNING:", "^WARNING: .*lib/kobject\\.c.* (kobject_|at)", "WARNING: kobject bug in %F", STACK_WARN,
	  .skip = "kobject_" },
	{ "WARNING:", "^WARNING: .*fs/proc/generic\\.c.* (proc_register|at)", "WARNING: proc registration bug in %F",
	  STACK_WARN, .skip = "proc_" },
	{ "WARNING:", "^WARNING: .*lib/refcount\\.c.* (refcount_|at)", "WARNING: refcount bug in %F", STACK_WARN,
	  .skip = "refcount|kobject_" },
	{ "WARNING:", "^WARNING: .*kernel/locking/lockdep\\.c.*lock_", "WARNING: locking bug in %F", STACK_WARN,
	  .skip = "lock_sock|release_sock" },
	{ "WARNING:", "^WARNING: .*still has locks held!", "WARNING: still has locks held in %F",
	  .parts = { NAME("at: ") } },
	{ "WARNING: Nested lock was not taken", NULL, "WARNING: nested lock was not taken in %F", STACK_WARN },
	{ "WARNING: lock held when returning to user space", NULL,
	  "WARNING: lock held when returning to user space in %F",
	  .parts = { LINE("leaving the kernel with locks still held"), NAME("at: ") } },
	{ "WARNING:", "^WARNING: .*mm/.*\\.c.* k?.?malloc", "WARNING: kmalloc bug in %F", STACK_WARN,
	  .skip = "kmalloc|krealloc|slab|kmem" },
	{ "WARNING:", "^WARNING: .*mm/vmalloc\\.c.*__vmalloc_node", "WARNING: zero-size vmalloc in %F", STACK_WARN },
	/* A USB driver's bad URB: named after the driver's caller of the submit helpers. */
	{ "WARNING:", "^WARNING: .* usb_submit_urb", "WARNING in %F/usb_submit_urb", STACK_WARN,
	  .skip = "usb_submit_urb|usb_start_wait_urb|usb_bulk_msg|usb_interrupt_msg|usb_control_msg" },
	/*
	 * __warn(): since 6.18 "FILE:LINE at f+0x1/0x2, CPU#0", before "CPU: 0 PID: 1
	 * at FILE:LINE f+0x1/0x2".  The older one is named by its stack alone
	 * (syzkaller's "WARNING in corrupted" when the stack is missing).
	 */
	{ "WARNING:", "^WARNING: (\\[.*\\] )?" SRC " at " FUNC, "WARNING in %F", STACK_WARN, .flags = F_HEADER_FUNC },
	{ "WARNING:", "^WARNING: " SRC " at 0x[0-9a-f]+, CPU#", "WARNING in %F", STACK_WARN },
	{ "WARNING:", "^WARNING: (.* )?at (" SRC " )?" FUNC, "WARNING in %F", STACK_WARN },
	{ "WARNING:", "^WARNING: (.* )?at " SRC, "WARNING in %F", STACK_WARN },
	{ "WARNING: possible circular locking dependency detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("is trying to acquire lock"), AT("at: "), AT("at: "), FRAMES },
	  .skip = "process_one_work|flush_workqueue|drain_workqueue|destroy_workqueue", .flags = F_NEEDS_LINE },
	{ "WARNING: possible irq lock inversion dependency detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("just changed the state of lock"), NAME("at: ") } },
	{ "WARNING:", "^WARNING: .*-safe -> .*-unsafe lock order detected", "possible deadlock in %F",
	  .parts = { LINE("which became "), FRAMES } },
	{ "WARNING: possible recursive locking detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("is trying to acquire lock"), NAME("at: ") } },
	/*
	 * Named after the stack that took the lock the wrong way, past lockdep's
	 * own check (valid_state) and the socket lock wrappers, as the locking bugs are.
	 */
	{ "WARNING: inconsistent lock state", NULL, "inconsistent lock state in %F", STACK_TRACE,
	  .skip = "^valid_state$|lock_sock|release_sock" },
	/* Its message names a source line ("include/linux/rcupdate.h:302 Illegal context switch ..."). */
	{ "WARNING: suspicious RCU usage", NULL, "WARNING: suspicious RCU usage in %F",
	  .parts = { LINE(".c:|.h:"), TRACE, FRAMES }, .skip = "rcu|kmem|slab", .flags = F_NEEDS_LINE },
	/* With a hashed or padded address ("(ptrval)") or a task name with spaces, syzkaller's plainer title. */
	{ "WARNING: kernel stack regs at", "^WARNING: kernel stack regs at [0-9a-f]+ in [^ ]* has bad '([^']+)' value",
	  "WARNING: kernel stack regs has bad '%1' value" },
	{ "WARNING: kernel stack frame pointer at", "^WARNING: kernel stack frame pointer at [0-9a-f]+ in [^ ]* has bad value",
	  "WARNING: kernel stack frame pointer has bad value" },
	{ "WARNING: kernel stack regs ", "has bad 'bp' value", "WARNING: kernel stack regs has bad value" },
	{ "WARNING: kernel stack frame pointer ", "has bad value", "WARNING: kernel stack regs has bad value" },
	{ "WARNING: bad unlock balance detected!", NULL, "WARNING: bad unlock balance in %F",
	  .parts = { AT(">] "), TRACE, FRAMES } },
	{ "WARNING: held lock freed!", NULL, "WARNING: held lock freed in %F", .parts = { NAME("at: ") } },
	{ "WARNING:", "^WARNING:[[:space:]]*$", "WARNING: corrupted", .flags = F_CORRUPTED },
	{ "WARNING:", NULL, "%L", .flags = F_START },

	/* INFO: (lockdep's old headers, stalls, hung tasks) */
	{ "INFO: possible circular locking dependency detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("is trying to acquire lock"), NAME("at: ") } },
	{ "INFO: possible irq lock inversion dependency detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("just changed the state of lock"), NAME("at: ") } },
	{ "INFO: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("is trying to acquire"), NAME("at: ") } },
	{ "INFO: possible recursive locking detected", NULL, "possible deadlock in %F",
	  .parts = { LINE("is trying to acquire lock"), NAME("at: ") } },
	{ "INFO: inconsistent lock state", NULL, "inconsistent lock state in %F",
	  .parts = { LINE("takes"), NAME("at: ") } },
	{ "INFO: rcu_", "^INFO: rcu_[a-z_]+ (self-)?detected( expedited)? stall",
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
	/* ARM's own fault lines, before its "Internal error:". */
	{ "Unhandled fault:", NULL, "Unhandled fault in %F", STACK_RIP, .flags = F_START },
	{ "Alignment trap:", NULL, "Alignment trap in %F", STACK_RIP, .flags = F_START },

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
	/* Repeated every 10 s while a device hangs: inside another report it is only interleaved. */
	{ "unregister_netdevice: waiting for ", "^unregister_netdevice: waiting for .* to become free",
	  "unregister_netdevice: waiting for DEV to become free", .flags = F_CONTINUES },
	{ "VFS: Close: file count is 0", NULL, "VFS: Close: file count is zero (use-after-free)" },
	{ "VFS: Busy inodes after unmount", NULL, "VFS: Busy inodes after unmount (use-after-free)" },
	/* The decompressor's line once the kernel had run (the log's own boot is passed over). */
	{ "Booting the kernel", NULL, "unexpected kernel reboot", .flags = F_START },
	/* Trusty, the TEE beside an Android kernel, printing through it. */
	{ "trusty: panic", "^trusty: panic \\(.*\\):( DEBUG)? ASSERT FAILED at \\([^)]*\\): (.+)$",
	  "trusty: ASSERT FAILED: %2" },
	{ "trusty: panic", "^trusty: panic.* ASSERT FAILED.*: *(.*)$", "trusty: ASSERT FAILED: %1", .flags = F_CORRUPTED },
	{ "trusty: panic", "^trusty: panic \\([^)]*\\): (.+)$", "trusty: panic: %1" },
	/* The fuzzer's own fatal errors, crashes to syzkaller too; inside a kernel report only its echo. */
	{ "SYZFAIL:", NULL, "%L", .flags = F_NUMS | F_CONTINUES },
	{ "SYZFATAL:", NULL, "%L", .flags = F_NUMS | F_CONTINUES },
};

/* Any other die() line, "STR: 0000 [#1] ...": "STR in FUNC" (this bench's "fpu exception"). */
const struct format crash_die_format = { NULL, NULL, "%K in %F", STACK_RIP, .flags = F_CONTINUES };

/*
 * Lines that hold a header and are no report (syzkaller's list, and
 * printk's own framing): an ERE, tried when the line holds its needle.
 */
const struct crash_ignore crash_ignores[] = {
	{ "BUG: no syscalls", "BUG: no syscalls can create resource" },
	{ "WARNING: /etc/ssh", "WARNING: /etc/ssh/moduli does not exist, using fixed modulus" },
	{ "WARNING: workqueue", "WARNING: workqueue cpumask: online intersect > possible intersect" },
	/* Its start only: a log may end inside the line. */
	{ "he mand mount option", "WARNING: [Tt]he mand mount option" },
	{ "WARNING: Unsupported", "WARNING: Unsupported flag value\\(s\\) of 0x%x in DT_FLAGS_1" },
	/* Spectre mitigation notices at boot ("with eIBRS", "data leaks possible via ... BHB"). */
	{ "WARNING: Unprivileged", "WARNING: Unprivileged eBPF is enabled" },
	{ "WARNING: fbcon", "WARNING: fbcon: Driver '.*' missed to adjust virtual screen size" },
	{ "WARNING: See https", "WARNING: See https.* for mitigation options" },
	{ "WARNING: kernel not", "WARNING: kernel not compiled with CPU_SRSO" },
	{ "EXT4-", "EXT4-[Ff][Ss]( \\(.*\\))?:" },
	{ "XFS (", "XFS \\([a-zA-Z0-9_]+\\): WARNING" },
	{ " uses ", "[Ww][Aa][Rr][Nn][Ii][Nn][Gg]: .* uses (deprecated v2 capabilities|wireless extensions)" },
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
const char *const crash_skip_frames[] = {
	"__sanitizer", "__asan", "kasan", "__msan", "kmsan", "kcsan_setup_watchpoint",
	"check_memory_region", "check_heap_object", "check_object", "read_word_at_a_time",
	"(read|write)_once_.*nocheck", "print_address_description", "panic", "invalid_op",
	"report_bug", "fixup_bug", "print_report", "print_usage_bug", "do_error", "_trap$|do_trap",
	"show_stack", "dump_stack", "walk_stack", "dump_backtrace", "warn_slowpath", "warn_alloc",
	"warn_bogus", "__warn", "alloc_page", "alloc_frozen_pages", "k?v?(m|z|c)alloc", "krealloc",
	"kmem_cache", "allocate_slab", "folio_alloc", "filemap_alloc_folio", "__filemap_get_folio",
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
	"^(drop|inc|clear|set)_nlink$", "hwasan", "folio_unlock", "ida_free", "__phys_addr",
	"__fortify_report", "cleanup_srcu_struct", "rhashtable_lookup", "extract_(user|iter)_to_sg",
	"^get_taint$", "^put_device$", "lock_timer_base", "__timer_delete_sync", "sk_stop_timer_sync",
	"__mod_timer", "dput", "mark_buffer_dirty",
};

/* Where a stall's code dispatched the work that looped (EX_STALL). */
const char crash_stall_anchors[] =
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

/*
 * Frames of a fault injection's stack (syzkaller's corrupted lines): such a
 * stack printed into a report makes its frames worthless, FUNC is "corrupted".
 */
const char crash_corrupting_frames[] = "^should_fail(slab)?$";

/*
 * Notices that are no report but print a stack (crash_has_needle()):
 * without caller ids, one inside a report ends it, its stack is not the report's.
 */
const char crash_stack_notices[] =
	"vmalloc: allocation failure:|FAULT_INJECTION: forcing a failure|FAULT_FLAG_ALLOW_RETRY missing";

/* A hung task's frames that only wait (EX_HUNG), and the waits that name the hang themselves. */
const char *const crash_hung_skip[] = {
	"sched", "_lock", "_slowlock", "down", "rwsem", "completion", "kthread", "wait",
	"synchronize", "context_switch", "__switch_to", "cancel_delayed_work", "rcu_barrier",
};

/* Syscall wrappers' prefixes: a frame is named after its shortest stripped form. */
const char *const crash_frame_prefixes[] = {
	"SYSC_", "SyS_", "sys_", "__x64_", "__ia32_", "__arm64_", "____sys_", "___sys_", "__sys_",
	"__se_", "__do_sys_", "compat_SYSC_", "compat_SyS_", "ksys_",
};

/* What a header begins with (may_match()). */
const char *const crash_header_starts[] = {
	"BUG", "WARNING:", "INFO:", "Internal error:", "UBSAN:", "Unable to handle kernel ",
	"general protection fault", "stack segment: ", "PANIC: double fault", "Kernel panic",
	"Kernel BUG ", "kernel BUG at ", "divide error: ", "divide_error: ", "invalid opcode: ",
	"unregister_netdevice: ", "VFS: ", " [#", "Booting the kernel", "SYZFAIL:", "SYZFATAL:",
	"Unhandled fault:", "Alignment trap:", "trusty: panic",
};


struct crash_rx crash_rx;

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

	for (size_t i = 0; i < ARRAY_SIZE(crash_skip_frames); i++)
		strbuf_addf(&sb, "%s(%s)", i ? "|" : "", crash_skip_frames[i]);
	rx_compile(&crash_rx.skip, sb.buf, REG_NOSUB);
	strbuf_release(&sb);
	crash_rx.nformats = ARRAY_SIZE(crash_formats);
	crash_rx.nignores = ARRAY_SIZE(crash_ignores);
	crash_rx.re = xcalloc(crash_rx.nformats, sizeof(regex_t));
	crash_rx.format_skip = xcalloc(crash_rx.nformats, sizeof(regex_t));
	crash_rx.ignore = xcalloc(crash_rx.nignores, sizeof(regex_t));
	for (size_t i = 0; i < crash_rx.nformats; i++) {
		if (crash_formats[i].re)
			rx_compile(&crash_rx.re[i], crash_formats[i].re, 0);
		if (crash_formats[i].skip)
			rx_compile(&crash_rx.format_skip[i], crash_formats[i].skip, REG_NOSUB);
	}
	for (size_t i = 0; i < crash_rx.nignores; i++)
		rx_compile(&crash_rx.ignore[i], crash_ignores[i].re, REG_NOSUB);
	rx_compile(&crash_rx.anchors, crash_stall_anchors, REG_NOSUB);
	rx_compile(&crash_rx.corrupting, crash_corrupting_frames, REG_NOSUB);
	for (size_t i = 0; i < ARRAY_SIZE(crash_header_starts); i++)
		crash_rx.first[(unsigned char)crash_header_starts[i][0]] = true;
}

void crash_rx_ready(void)
{
	pthread_once(&rx_once, rx_init);
}

const size_t crash_nframe_prefixes = ARRAY_SIZE(crash_frame_prefixes);
const size_t crash_nhung_skip = ARRAY_SIZE(crash_hung_skip);
const size_t crash_nheader_starts = ARRAY_SIZE(crash_header_starts);

/* What an extractor passes over, in words (crash_rule_get()). */
static const char *extractor_skips(enum extractor ex)
{
	switch (ex) {
	case EX_STALL:
		return "the frames from the dispatcher (syscall, workqueue...) on";
	case EX_HUNG:
		return "the scheduler, sleep and lock helpers";
	case EX_FIRST:
		break;
	}
	return NULL;
}

bool crash_rule_get(size_t i, struct crash_rule *rule)
{
	size_t n = ARRAY_SIZE(crash_formats);
	const struct format *f = i < n ? &crash_formats[i] : i == n ? &crash_die_format : NULL;
	const char *phrase;

	if (!f)
		return false;
	if (!f->header)
		snprintf(rule->begins, sizeof(rule->begins), "any other die() line: STR: 0000 [#1]");
	else if (!f->re || f->re[0] == '^')
		snprintf(rule->begins, sizeof(rule->begins), "%s", f->re ? f->re : f->header);
	else
		snprintf(rule->begins, sizeof(rule->begins), "%s ... %s", f->header, f->re);
	rule->title = f->title;
	phrase = extractor_skips(f->ex);
	snprintf(rule->skips, sizeof(rule->skips), "%s%s%s", f->skip ? f->skip : "",
		 f->skip && phrase ? "; " : "", phrase ? phrase : "");
	rule->start = f->flags & F_START;
	return true;
}
