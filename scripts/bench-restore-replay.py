#!/usr/bin/env python3
"""bench-restore-replay.py: a restored run's boots again, with plain QEMU.

Usage: scripts/bench-restore-replay.py CACHE RUN_DIR T0 T1 JOBS WORK

The reference of `make bench`'s figure 2d: what QEMU alone needs for the
boots that a warm `fpubench run` restored from the cache's saved guests,
without libvirt and without the bench.  Every qemu started between T0 and
T1 (epoch seconds) for a saved guest (CACHE/libvirt/log/qemu/
fpubench-saved-ID.log, the argv libvirt logged) runs again from the same
image (CACHE/saves/ID*/image, after libvirt's header), with libvirt's file
descriptors replaced by files and sockets in WORK, and gets the line the
bench gives a restored guest (bench/boot/restore.c, request_line), with the
start index that boot had.  That index is read from the run's console of the
boot: each console starts with its save's console, which names the save, and
a save's consoles in boot order are its qemu starts in time order.  JOBS
boots run at once.  Prints "WALL CPU BOOTS": the wall time of all, the qemus'
user + sys, and the boots replayed: not the run's cold boots, nor any boot of
a save that the run made (its park and restore are two starts for one
console).  Exits non-zero when a boot did not end as the run's did (its tests
done, or a kernel panic) or nothing could be replayed.
"""
import datetime
import glob
import json
import os
import re
import shlex
import socket
import struct
import subprocess
import sys
import threading
import time

SAVE_MAGIC = b"LibvirtQemudSave"
HEADER = 92	# libvirt 9.0's save header: the magic and 19 32-bit words
STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)\+0000: starting up.*?\n(.*?-msg timestamp=on)",
                   re.S | re.M)


def die(msg):
    sys.exit("bench-restore-replay: " + msg)


def starts(log, t0, t1):
    """The argv of each qemu started in [t0, t1], in time order."""
    out = []
    for m in STAMP.finditer(open(log, errors="replace").read()):
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        if t0 <= t <= t1:
            argv = shlex.split(m.group(2).replace("\\\n", " "))
            out.append(argv[next(i for i, a in enumerate(argv) if a.endswith("qemu-system-i386")):])
    return out


def ending(console):
    """How a boot ended: its tests done, a kernel panic, or neither."""
    return "done" if "fpubench: done" in console else "panic" if "Kernel panic" in console else None


def boots_of(cache, run_dir, t0, t1):
    """(image, argv, start, ending) for every restored boot of the run."""
    saved = {}
    for d in glob.glob(cache + "/saves/*/"):
        if os.path.exists(d + "console") and os.path.exists(d + "image"):
            saved[open(d + "console", "rb").read()] = d
    by_save = {}
    for c in glob.glob(run_dir + "/console/*.log"):
        text = open(c, "rb").read()
        m = re.search(rb"fpubench: resume (\d+)", text)
        save = next((d for head, d in saved.items() if text.startswith(head)), None)
        boot = int(re.search(r"\.(\d+)\.log$", c).group(1))
        if save and m:
            by_save.setdefault(save, []).append((boot, int(m.group(1)),
                                                 ending(text.decode(errors="replace"))))
    out = []
    for save, consoles in by_save.items():
        name = os.path.basename(save.rstrip("/"))[:16]
        argvs = starts(cache + "/libvirt/log/qemu/fpubench-saved-" + name + ".log", t0, t1)
        # A boot that parked and was saved adds a start: such a save's boots are left out.
        if len(argvs) != len(consoles):
            print("bench-restore-replay: save %s: %d qemu starts in the domain log, %d consoles: "
                  "not replayed" % (name, len(argvs), len(consoles)), file=sys.stderr)
            continue
        for argv, (_, start, end) in zip(argvs, sorted(consoles)):
            out.append((save + "image", argv, start, end))
    if not out:
        die("no restored boot of '%s' in the domain logs" % run_dir)
    return out


def plain_argv(argv, work, i, fd):
    """libvirt's argv, its descriptors and its paused start replaced."""
    out = []
    it = iter(argv)
    for a in it:
        if a in ("-S", "-no-shutdown"):
            continue
        if a in ("-object", "-add-fd", "-chardev", "-incoming"):
            v = next(it)
            if a == "-add-fd" or "masterKey0" in v:
                continue
            if a == "-chardev" and "id=charmonitor," in v:
                v = "socket,id=charmonitor,path=%s/mon%d,server=on,wait=off" % (work, i)
            elif a == "-chardev" and "id=charserial0," in v:
                v = "file,id=charserial0,path=%s/console%d.log" % (work, i)
            elif a == "-chardev" and "id=charserial1," in v:
                v = "socket,id=charserial1,path=%s/park%d,server=on,wait=off" % (work, i)
            elif a == "-incoming":
                v = "fd:%d" % fd
            out += [a, v]
            continue
        out.append(a)
    return out + ["-no-reboot"]


def connect(path):
    s = socket.socket(socket.AF_UNIX)
    for _ in range(5000):
        try:
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.002)
    die("no socket at '%s'" % path)


def boot(work, i, image, argv, start, _end):
    """One restored boot; (qemu's user + sys, its console)."""
    for p in ("mon%d" % i, "park%d" % i):
        if os.path.exists("%s/%s" % (work, p)):
            os.unlink("%s/%s" % (work, p))
    fd = os.open(image, os.O_RDONLY)
    head = os.read(fd, HEADER)
    if head[:16] != SAVE_MAGIC:
        die("'%s' is not a libvirt save image" % image)
    offset = HEADER + struct.unpack("<I", head[20:24])[0]
    if os.pread(fd, 4, offset) != b"QEVM":
        die("no QEMU stream after the header of '%s'" % image)
    os.lseek(fd, offset, os.SEEK_SET)
    with open("%s/err%d" % (work, i), "w") as err:
        qemu = subprocess.Popen(plain_argv(argv, work, i, fd), pass_fds=(fd,),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    os.close(fd)
    # As libvirt: the image loaded, the saved guest paused until `cont`.
    mon = connect("%s/mon%d" % (work, i)).makefile("rw")
    mon.readline()

    def qmp(cmd):
        mon.write(json.dumps({"execute": cmd}) + "\n")
        mon.flush()
        while True:
            reply = json.loads(mon.readline() or '{"error": "closed"}')
            if "return" in reply or "error" in reply:
                return reply

    qmp("qmp_capabilities")
    while qmp("query-status").get("return", {}).get("status") == "inmigrate":
        time.sleep(0.001)
    qmp("cont")
    park = connect("%s/park%d" % (work, i))
    now = time.time()
    park.sendall(("go start=%d tests= time=%d.%09d seed=%s\n" %
                  (start, int(now), int(now % 1 * 1e9), os.urandom(32).hex())).encode())
    got = b""
    while b"resumed" not in got:
        data = park.recv(256)
        if not data:
            break
        got += data
    park.close()
    _, status, usage = os.wait4(qemu.pid, 0)
    mon.close()
    if status != 0:
        die("qemu exited %d; see '%s/err%d'" % (status, work, i))
    return usage.ru_utime + usage.ru_stime, open("%s/console%d.log" % (work, i), errors="replace").read()


def main():
    if len(sys.argv) != 7:
        die("usage: bench-restore-replay.py CACHE RUN_DIR T0 T1 JOBS WORK")
    cache, run_dir, t0, t1, jobs, work = sys.argv[1], sys.argv[2], float(sys.argv[3]), \
        float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    os.makedirs(work, exist_ok=True)
    todo = boots_of(cache, run_dir, t0, t1)
    results = [None] * len(todo)
    lock = threading.Lock()
    nxt = [0]

    def worker():
        while True:
            with lock:
                i = nxt[0]
                nxt[0] += 1
            if i >= len(todo):
                return
            results[i] = boot(work, i, *todo[i])

    began = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - began
    if None in results:
        die("a boot did not finish; see the errors above")
    for i, (_, console) in enumerate(results):
        if ending(console) != todo[i][3]:
            die("boot %d ended %s, the run's %s; see '%s/console%d.log'" %
                (i, ending(console) or "neither done nor in a panic", todo[i][3], work, i))
    print("%.3f %.3f %d" % (wall, sum(r[0] for r in results), len(results)))


if __name__ == "__main__":
    main()
