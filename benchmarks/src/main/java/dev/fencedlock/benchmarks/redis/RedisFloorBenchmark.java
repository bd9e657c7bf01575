package dev.fencedlock.benchmarks.redis;

import dev.fencedlock.benchmarks.BenchEnv;
import java.net.URI;
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
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * The floor: the least a correct single-node Redis lock can do. {@code SET key value NX PX ttl}
 * takes the lock, a compare-and-delete script run by SHA releases it, each on the thread's own
 * connection and key. Nothing renews, retries or fences; every lock on Redis pays at least this.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// 20 s of warm-up: RedissonRedLock at 8 threads reaches its steady rate only after about 15 s
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 3, time = 2)
public class RedisFloorBenchmark {
    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
    private static final long TTL_MILLIS = 30_000;

    /** One connection and key per thread, like separate clients contending on nothing. */
    @State(Scope.Thread)
    public static class Connection {
        Jedis jedis;
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
            jedis = new Jedis(URI.create(BenchEnv.redisUris(1).get(0)));
            key = "bench:floor:" + threadIndex;
            // A value unique per acquisition, as Redlock requires; a counter keeps its cost out of the floor.
            valuePrefix = ProcessHandle.current().pid() + ":" + threadIndex + ":";
            releaseSha = jedis.scriptLoad(COMPARE_AND_DELETE);
            jedis.del(key);
        }

        @TearDown(Level.Trial)
        public void close() {
            jedis.close();
        }

        long lockAndUnlock() {
            String value = valuePrefix + (++sequence);
            String reply = jedis.set(key, value, SetParams.setParams().nx().px(TTL_MILLIS));
            if (!"OK".equals(reply)) {
                throw new IllegalStateException("SET NX on an uncontended key " + key + " answered " + reply);
            }
            Object released = jedis.evalsha(releaseSha, List.of(key), List.of(value));
            if (!Long.valueOf(1).equals(released)) {
                throw new IllegalStateException(
                        "compare-and-delete of our own value on " + key + " answered " + released);
            }
            return sequence;
        }
    }

    @Benchmark
    @Threads(1)
    public long oneThread(Connection connection) {
        return connection.lockAndUnlock();
    }

    @Benchmark
    @Threads(8)
    public long eightThreads(Connection connection) {
        return connection.lockAndUnlock();
    }
}
