package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link JedisRedisNode} against a real redis-server. */
class JedisRedisNodeIT {
    private static final int CALLERS = 8;
    private static final int CALLS = 300;

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(1);

    /**
     * Many callers share a node whose pool starts with one idle connection, so they keep racing for
     * the last idle one. A caller that loses must hand the opening to the executor, not open a
     * connection itself: that would hold up its sends to the other nodes. Connections read the clock
     * only when they open ({@code INFO server}), so the clock tells which threads opened one.
     */
    @Test
    void sendNeverOpensAConnectionOnTheCallingThread() throws Exception {
        Set<String> openedOn = ConcurrentHashMap.newKeySet();
        MonotonicClock recording = () -> {
            openedOn.add(Thread.currentThread().getName());
            return System.nanoTime();
        };
        AtomicInteger connectThreads = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(
                4, runnable -> new Thread(runnable, "connect-" + connectThreads.incrementAndGet()));
        AtomicInteger callerThreads = new AtomicInteger();
        ExecutorService callers = Executors.newFixedThreadPool(
                CALLERS, runnable -> new Thread(runnable, "caller-" + callerThreads.incrementAndGet()));
        RedisNodeAddress address = RedisNodeAddress.parse(
                RedlockSettings.NODES, redis.servers().uris().get(0));
        RedlockKeys names = RedlockKeys.defaults();
        byte[][] records = {
            names.leaseExpiries().getBytes(StandardCharsets.UTF_8),
            names.leaseLengths().getBytes(StandardCharsets.UTF_8)
        };
        JedisRedisNode node =
                new JedisRedisNode(address, Duration.ofSeconds(5), null, recording, executor, records, ReplicaAck.NONE);
        try {
            node.warmUp();
            byte[][] keys = {names.lock("node:race").getBytes(StandardCharsets.UTF_8), records[0], records[1]};
            byte[][] args = {"nobody".getBytes(StandardCharsets.UTF_8), new byte[0]};
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                results.add(callers.submit(() -> {
                    start.await();
                    int ok = 0;
                    for (int call = 0; call < CALLS; call++) {
                        if (node.send(Script.RELEASE, keys, args).await().ok()) {
                            ok++;
                        }
                    }
                    return ok;
                }));
            }
            start.countDown();
            for (Future<Integer> result : results) {
                assertThat(result.get()).as("calls answered").isEqualTo(CALLS);
            }
            assertThat(openedOn).as("threads that opened a connection").allMatch(name -> !name.startsWith("caller-"));
        } finally {
            callers.shutdownNow();
            node.close();
            executor.shutdownNow();
        }
    }
}
