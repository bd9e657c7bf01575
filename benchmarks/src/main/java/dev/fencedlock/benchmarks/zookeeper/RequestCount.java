package dev.fencedlock.benchmarks.zookeeper;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.BenchEnv;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.test.TestingServer;

/**
 * Counts the ZooKeeper requests of one acquire-and-release cycle, per operation type and in bytes on
 * the wire, for fencedlock's zookeeper backend and for Curator's {@link InterProcessMutex}, as the
 * two throughput benchmarks run them ({@link FencedZookeeperBenchmark}, {@link CuratorBenchmark}):
 * uncontended, one client shared by 1 or 8 threads, each thread on its own lock name.
 *
 * <p>An in-process ZooKeeper server sits behind a proxy that reads ZooKeeper's framing (a length,
 * then a request header {@code xid, type}; replies a header {@code xid, zxid, err}) and counts every
 * packet in both directions; the operations inside a {@code multi} are named too. Each side first
 * runs warm-up cycles (the first use of a name creates parents and token nodes), then the counters
 * are reset and {@code cycles} cycles per thread are counted. Pings and watch events are reported
 * but are not part of a cycle. Counts do not depend on the machine's speed or load; the transaction
 * count is the growth of the server's {@code zxid} as the replies report it.
 *
 * <p>The CPU time per cycle (from {@code schedstat}) counts only what the threads ran, so the
 * machine's load moves it far less than throughput; the warm-up lets the JIT compile both sides'
 * code paths first.
 *
 * <pre>java -cp benchmarks.jar dev.fencedlock.benchmarks.zookeeper.RequestCount [cycles per thread [warm-up cycles per thread]]</pre>
 */
public final class RequestCount {
    private static int warmupCycles = 2000;
    private static final Map<String, long[]> SWITCHES_BEFORE = new TreeMap<>();
    private static final Map<String, long[]> SWITCHES_AFTER = new TreeMap<>();
    private static final LongAdder[] WORKER_SWITCHES = {new LongAdder(), new LongAdder(), new LongAdder()};

    private RequestCount() {}

    public static void main(String[] args) throws Exception {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        warmupCycles = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        try (TestingServer server = new TestingServer(-1, true);
                CountingProxy proxy = new CountingProxy(server.getPort())) {
            System.setProperty(BenchEnv.ZOOKEEPER, "127.0.0.1:" + proxy.port());
            for (int threads : new int[] {1, 8}) {
                report("fencedlock zookeeper", threads, cycles, proxy, fencedlock(threads, cycles));
                report("Curator InterProcessMutex", threads, cycles, proxy, curator(threads, cycles));
            }
        }
    }

    /** Runs the cycles of one side: warm-up, then a reset of the counters, then the counted cycles. */
    private interface Side {
        void run(CountingProxy proxy) throws Exception;
    }

    private static Side fencedlock(int threads, int cycles) {
        return proxy -> {
            try (LockClient client = Backends.fencedlock(Backends.ZOOKEEPER)) {
                List<FencedLock> locks = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    locks.add(client.lock("bench-lock-" + t));
                }
                inThreads(threads, warmupCycles, cycles, proxy, t -> {
                    try (Lease lease = locks.get(t).acquire(Backends.UNCONTENDED_WAIT)) {
                        if (lease.token() <= 0) {
                            throw new IllegalStateException("no token");
                        }
                    }
                });
            }
        };
    }

    private static Side curator(int threads, int cycles) {
        return proxy -> {
            CuratorFramework curator = Backends.curator();
            try {
                List<InterProcessMutex> mutexes = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    mutexes.add(new InterProcessMutex(curator, "/bench-curator/lock-" + t));
                }
                inThreads(threads, warmupCycles, cycles, proxy, t -> {
                    InterProcessMutex mutex = mutexes.get(t);
                    if (!mutex.acquire(Backends.UNCONTENDED_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new IllegalStateException("uncontended lock not granted");
                    }
                    mutex.release();
                });
            } finally {
                curator.close();
            }
        };
    }

    private interface Cycle {
        void run(int thread) throws Exception;
    }

    /**
     * Every thread runs {@code warmup} cycles; once all have, the counters are reset and every
     * thread runs {@code cycles} more; the counters are frozen when the last one is done.
     */
    private static void inThreads(int threads, int warmup, int cycles, CountingProxy proxy, Cycle cycle)
            throws Exception {
        CountDownLatch warm = new CountDownLatch(threads);
        CountDownLatch reset = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread worker = new Thread(
                    () -> {
                        try {
                            for (int i = 0; i < warmup; i++) {
                                cycle.run(thread);
                            }
                            warm.countDown();
                            reset.await();
                            long[] before = ThreadSwitches.self();
                            for (int i = 0; i < cycles; i++) {
                                cycle.run(thread);
                            }
                            long[] after = ThreadSwitches.self();
                            for (int i = 0; i < 3; i++) {
                                WORKER_SWITCHES[i].add(after[i] - before[i]);
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                            warm.countDown();
                        }
                    },
                    "cycle-" + t);
            workers.add(worker);
            worker.start();
        }
        warm.await();
        Thread.sleep(200); // let the last warm-up replies arrive before the reset
        proxy.reset();
        SWITCHES_BEFORE.clear();
        SWITCHES_BEFORE.putAll(ThreadSwitches.read());
        for (LongAdder adder : WORKER_SWITCHES) {
            adder.reset();
        }
        reset.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        Thread.sleep(200); // let background replies of the last cycle (a release not waited for) arrive
        proxy.freeze();
        SWITCHES_AFTER.clear();
        SWITCHES_AFTER.putAll(ThreadSwitches.read());
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a cycle failed", failures.get(0));
        }
    }

    private static void report(String name, int threads, int cycles, CountingProxy proxy, Side side) throws Exception {
        side.run(proxy);
        double total = (double) threads * cycles;
        System.out.printf("%n== %s, %d thread(s), distinct names, %d cycles counted%n", name, threads, (long) total);
        System.out.printf("%-44s %10s %14s %14s%n", "request type", "per cycle", "req bytes/cyc", "reply bytes/cyc");
        double requests = 0;
        double requestBytes = 0;
        double replyBytes = 0;
        for (Map.Entry<String, long[]> e : proxy.snapshot().entrySet()) {
            long[] v = e.getValue();
            boolean background = e.getKey().startsWith("ping") || e.getKey().startsWith("watch event");
            System.out.printf(
                    "%-44s %10.3f %14.1f %14.1f%s%n",
                    e.getKey(), v[0] / total, v[1] / total, v[2] / total, background ? "   (not part of a cycle)" : "");
            if (!background) {
                requests += v[0] / total;
                requestBytes += v[1] / total;
                replyBytes += v[2] / total;
            }
        }
        System.out.printf("%-44s %10.3f %14.1f %14.1f%n", "total per cycle", requests, requestBytes, replyBytes);
        System.out.printf("%-44s %10.3f%n", "server transactions (zxid growth) per cycle", proxy.zxidGrowth() / total);
        System.out.printf("%-44s %10s %14s %10s%n", "thread group", "voluntary", "involuntary", "CPU");
        System.out.printf("%-44s %10s %14s %10s%n", "", "switches/cyc", "switches/cyc", "us/cycle");
        print(
                "client: the benchmark's threads (cycle-#)",
                WORKER_SWITCHES[0].sum(),
                WORKER_SWITCHES[1].sum(),
                WORKER_SWITCHES[2].sum(),
                total);
        Map<String, long[]> sides = new TreeMap<>();
        for (Map.Entry<String, long[]> e :
                ThreadSwitches.delta(SWITCHES_BEFORE, SWITCHES_AFTER).entrySet()) {
            long[] v = e.getValue();
            if (v[0] / total >= 0.01 || v[1] / total >= 0.01 || v[2] / total >= 100) {
                print(e.getKey(), v[0], v[1], v[2], total);
            }
            long[] sum =
                    sides.computeIfAbsent(e.getKey().substring(0, e.getKey().indexOf(':')), k -> new long[3]);
            for (int i = 0; i < 3; i++) {
                sum[i] += v[i];
            }
        }
        sides.get("client")[0] += WORKER_SWITCHES[0].sum();
        sides.get("client")[1] += WORKER_SWITCHES[1].sum();
        sides.get("client")[2] += WORKER_SWITCHES[2].sum();
        sides.forEach((owner, v) -> print("total of the " + owner + "'s threads", v[0], v[1], v[2], total));
    }

    private static void print(String group, long voluntary, long involuntary, long cpuNanos, double cycles) {
        System.out.printf(
                "%-44s %10.3f %14.3f %10.1f%n",
                group, voluntary / cycles, involuntary / cycles, cpuNanos / cycles / 1000);
    }

    /**
     * Context switches and CPU time of this JVM's threads, from {@code /proc/self/task/<tid>/status}
     * and {@code schedstat}, summed by thread name with digits left out ({@code comm}, 15
     * characters) and marked as the client's, the in-process server's or the proxy's. A thread that
     * blocks and is woken makes one voluntary switch, so a cycle's thread hand-offs can be counted;
     * the CPU time is what the threads ran, not what they waited for a core. Linux only; empty
     * elsewhere.
     */
    static final class ThreadSwitches {
        private static final String[] SERVER = {
            "NIOServerCxn", "NIOWorkerThrea", "SyncThread", "ProcessThread", "CommitProcWork", "CommitProcesso",
            "RequestThrottl", "SessionTracker", "ConnnectionExpi", "ConnectionExpi", "zkservermainru", "PurgeTask",
            "LearnerHandler", "FinalRequestPro"
        };

        static Map<String, long[]> read() {
            Map<String, long[]> byName = new TreeMap<>();
            java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
            if (tasks == null) {
                return byName;
            }
            for (java.io.File task : tasks) {
                try {
                    String name = java.nio.file.Files.readString(task.toPath().resolve("comm"))
                            .trim();
                    String side = name.startsWith("counting-proxy") ? "proxy: " : "client: ";
                    for (String prefix : SERVER) {
                        if (name.startsWith(prefix)) {
                            side = "server: ";
                        }
                    }
                    String group = side + name.replaceAll("[0-9]+", "#");
                    long[] counts = counts(task.toPath());
                    byName.put(task.getName() + "\u0000" + group, counts);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
            return byName;
        }

        /** The calling thread's voluntary and involuntary switches and CPU nanoseconds so far. */
        static long[] self() {
            try {
                return counts(java.nio.file.Path.of("/proc/thread-self"));
            } catch (IOException | RuntimeException e) {
                return new long[3]; // not Linux
            }
        }

        private static long[] counts(java.nio.file.Path task) throws IOException {
            long[] counts = new long[3];
            for (String line : java.nio.file.Files.readAllLines(task.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    counts[0] =
                            Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                    counts[1] =
                            Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            String schedstat =
                    java.nio.file.Files.readString(task.resolve("schedstat")).trim();
            counts[2] = Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
            return counts;
        }

        /** Per thread group: switches and CPU time between the two reads of threads alive at both. */
        static Map<String, long[]> delta(Map<String, long[]> before, Map<String, long[]> after) {
            Map<String, long[]> out = new TreeMap<>();
            after.forEach((key, counts) -> {
                long[] was = before.get(key);
                if (was != null) {
                    long[] sum = out.computeIfAbsent(key.substring(key.indexOf('\u0000') + 1), k -> new long[3]);
                    for (int i = 0; i < 3; i++) {
                        sum[i] += counts[i] - was[i];
                    }
                }
            });
            return out;
        }
    }

    /**
     * A TCP proxy in front of one ZooKeeper server that counts packets by operation type. The first
     * packet of each direction (the session's connect request and response) has no header and is
     * counted as {@code connect}.
     */
    static final class CountingProxy implements AutoCloseable {
        private final ServerSocket listener;
        private final int serverPort;
        private final Map<String, LongAdder[]> counts = new ConcurrentHashMap<>();
        private final AtomicLong firstZxid = new AtomicLong(-1);
        private final AtomicLong lastZxid = new AtomicLong(-1);
        private volatile boolean counting = true;
        private final List<Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();

        CountingProxy(int serverPort) throws IOException {
            this.serverPort = serverPort;
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "counting-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        void reset() {
            counts.clear();
            firstZxid.set(-1);
            lastZxid.set(-1);
            counting = true;
        }

        void freeze() {
            counting = false;
        }

        long zxidGrowth() {
            return firstZxid.get() < 0 ? 0 : lastZxid.get() - firstZxid.get();
        }

        /** Per type: requests, request bytes, reply bytes; sorted by type. */
        Map<String, long[]> snapshot() {
            Map<String, long[]> out = new TreeMap<>();
            counts.forEach((k, v) -> out.put(k, new long[] {v[0].sum(), v[1].sum(), v[2].sum()}));
            return out;
        }

        private void accept() {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                    client.setTcpNoDelay(true);
                    server.setTcpNoDelay(true);
                    sockets.add(client);
                    sockets.add(server);
                    Map<Integer, String> pending = new ConcurrentHashMap<>();
                    start(() -> pump(client, server, pending, true));
                    start(() -> pump(server, client, pending, false));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private static void start(Runnable task) {
            Thread thread = new Thread(task, "counting-proxy-pump");
            thread.setDaemon(true);
            thread.start();
        }

        private void pump(Socket from, Socket to, Map<Integer, String> pending, boolean requests) {
            try (DataInputStream in = new DataInputStream(from.getInputStream())) {
                OutputStream out = to.getOutputStream();
                boolean first = true;
                while (true) {
                    int length = in.readInt();
                    byte[] body = new byte[length];
                    in.readFully(body);
                    long bytes = 4L + length;
                    if (first) {
                        first = false;
                        count("connect", requests ? 1 : 0, requests ? bytes : 0, requests ? 0 : bytes);
                    } else if (requests) {
                        ByteBuffer b = ByteBuffer.wrap(body);
                        int xid = b.getInt();
                        int type = b.getInt();
                        String name = describe(type, b);
                        pending.put(xid, name);
                        count(name, 1, bytes, 0);
                    } else {
                        ByteBuffer b = ByteBuffer.wrap(body);
                        int xid = b.getInt();
                        long zxid = b.getLong();
                        String name = xid == -1 ? "watch event" : pending.remove(xid);
                        if (name == null) {
                            name = "reply to unknown xid " + xid;
                        }
                        count(name, 0, 0, bytes);
                        if (counting && zxid > 0) {
                            firstZxid.compareAndSet(-1, zxid);
                            lastZxid.accumulateAndGet(zxid, Math::max);
                        }
                    }
                    // Forwarded once counted, so that a request is known before its reply arrives.
                    out.write(ByteBuffer.allocate(4 + length)
                            .putInt(length)
                            .put(body)
                            .array());
                    out.flush();
                }
            } catch (EOFException e) {
                // closed
            } catch (IOException e) {
                // closed
            } finally {
                try {
                    to.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        private void count(String name, long requests, long requestBytes, long replyBytes) {
            if (!counting) {
                return;
            }
            LongAdder[] v = counts.computeIfAbsent(
                    name, k -> new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder()});
            v[0].add(requests);
            v[1].add(requestBytes);
            v[2].add(replyBytes);
        }

        /** The operation's name; for a {@code multi}, with the types of its operations. */
        private static String describe(int type, ByteBuffer body) {
            String name = opName(type);
            if (type != 14 && type != 22) {
                return name;
            }
            List<String> ops = new ArrayList<>();
            try {
                while (true) {
                    int opType = body.getInt();
                    boolean done = body.get() != 0;
                    body.getInt(); // err
                    if (done) {
                        break;
                    }
                    ops.add(opName(opType));
                    skipOp(opType, body);
                }
            } catch (RuntimeException e) {
                ops.add("?");
            }
            return name + ops;
        }

        private static void skipOp(int type, ByteBuffer b) {
            switch (type) {
                case 1, 15, 19, 21 -> { // create, create2, createContainer, createTTL
                    skipBuffer(b); // path
                    skipBuffer(b); // data
                    int acls = b.getInt();
                    for (int i = 0; i < acls; i++) {
                        b.getInt();
                        skipBuffer(b);
                        skipBuffer(b);
                    }
                    b.getInt(); // flags
                    if (type == 21) {
                        b.getLong();
                    }
                }
                case 5 -> { // setData
                    skipBuffer(b);
                    skipBuffer(b);
                    b.getInt();
                }
                case 2, 13 -> { // delete, check
                    skipBuffer(b);
                    b.getInt();
                }
                case 4, 8, 12 -> { // getData, getChildren, getChildren2
                    skipBuffer(b);
                    b.get();
                }
                default -> throw new IllegalArgumentException("op " + type);
            }
        }

        private static void skipBuffer(ByteBuffer b) {
            int length = b.getInt();
            if (length > 0) {
                b.position(b.position() + length);
            }
        }

        private static String opName(int type) {
            return switch (type) {
                case 0 -> "notification";
                case 1 -> "create";
                case 2 -> "delete";
                case 3 -> "exists";
                case 4 -> "getData";
                case 5 -> "setData";
                case 6 -> "getACL";
                case 7 -> "setACL";
                case 8 -> "getChildren";
                case 9 -> "sync";
                case 11 -> "ping";
                case 12 -> "getChildren2";
                case 13 -> "check";
                case 14 -> "multi";
                case 15 -> "create2";
                case 16 -> "reconfig";
                case 17 -> "checkWatches";
                case 18 -> "removeWatches";
                case 19 -> "createContainer";
                case 20 -> "deleteContainer";
                case 21 -> "createTTL";
                case 22 -> "multiRead";
                case 100 -> "auth";
                case 101 -> "setWatches";
                case 102 -> "sasl";
                case 103 -> "getEphemerals";
                case 104 -> "getAllChildrenNumber";
                case 105 -> "setWatches2";
                case 106 -> "addWatch";
                case 107 -> "whoAmI";
                case -10 -> "createSession";
                case -11 -> "closeSession";
                default -> "type " + type;
            };
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}
