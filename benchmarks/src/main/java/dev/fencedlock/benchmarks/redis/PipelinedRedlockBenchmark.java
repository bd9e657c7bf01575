package dev.fencedlock.benchmarks.redis;

import dev.fencedlock.benchmarks.BenchEnv;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;

/**
 * The anchor for fencedlock's Redlock over five nodes: the least a hand-written Redlock can do on
 * the same five servers. Acquire writes {@code SET key value NX PX ttl} to all five nodes (one
 * connection each, on the benchmark thread) before reading any reply, and wins on a majority;
 * release writes a compare-and-delete to all five, then reads the replies. No tokens, no renewal, no quarantine, no
 * validity arithmetic, no retry: every Redlock pays at least this, so {@code
 * FencedRedlockBenchmark.fiveNodes*} divided by it is what fencedlock's extras cost.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// 20 s of warm-up: RedissonRedLock at 8 threads reaches its steady rate only after about 15 s
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 3, time = 2)
public class PipelinedRedlockBenchmark {
    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
    private static final String TTL = "30000";
    private static final int NODES = 5;

    /** A Jedis connection that can flush the commands written so far without reading a reply. */
    static final class Wire extends Connection {
        Wire(String uri) {
            super(new HostAndPort(URI.create(uri).getHost(), URI.create(uri).getPort()));
        }

        void send() {
            flush();
        }
    }

    /** Five connections and one key per thread. */
    @State(Scope.Thread)
    public static class Nodes {
        final List<Wire> wires = new ArrayList<>();
        String key;
        String valuePrefix;
        String releaseSha;
        long sequence;

        @Setup(Level.Trial)
        public void connect(ThreadParams thread) {
            connect(thread.getThreadIndex());
        }

        /** Connects for the thread numbered {@code threadIndex} (also used outside JMH). */
        void connect(int threadIndex) {
            key = "bench:pipelined-redlock:" + threadIndex;
            valuePrefix = ProcessHandle.current().pid() + ":" + threadIndex + ":";
            for (String uri : BenchEnv.redisUris(NODES)) {
                Wire wire = new Wire(uri);
                wire.sendCommand(Protocol.Command.SCRIPT, "LOAD", COMPARE_AND_DELETE);
                releaseSha = new String((byte[]) wire.getOne(), StandardCharsets.US_ASCII);
                wire.sendCommand(Protocol.Command.DEL, key);
                wire.getOne();
                wires.add(wire);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            wires.forEach(Connection::close);
        }

        long lockAndUnlock() {
            String value = valuePrefix + (++sequence);
            for (Wire wire : wires) {
                wire.sendCommand(Protocol.Command.SET, key, value, "NX", "PX", TTL);
                wire.send();
            }
            int granted = 0;
            for (Wire wire : wires) {
                if (wire.getOne() != null) {
                    granted++;
                }
            }
            if (granted < NODES / 2 + 1) {
                throw new IllegalStateException("an uncontended key " + key + " was granted by " + granted + " nodes");
            }
            for (Wire wire : wires) {
                wire.sendCommand(Protocol.Command.EVALSHA, releaseSha, "1", key, value);
                wire.send();
            }
            for (Wire wire : wires) {
                wire.getOne();
            }
            return sequence;
        }
    }

    @Benchmark
    @Threads(1)
    public long fiveNodesOneThread(Nodes nodes) {
        return nodes.lockAndUnlock();
    }

    @Benchmark
    @Threads(8)
    public long fiveNodesEightThreads(Nodes nodes) {
        return nodes.lockAndUnlock();
    }
}
