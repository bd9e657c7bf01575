package dev.fencedlock.benchmarks.handoff;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.BenchEnv;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * The lock implementations the handoff benchmark compares, all on one lock name. One client is
 * shared; each contending thread gets its own handle, as separate processes would hold separate
 * handles.
 */
abstract class Contenders implements AutoCloseable {
    static final String FENCEDLOCK_REDLOCK = "fencedlock-redlock-5";
    static final String FENCEDLOCK_ZOOKEEPER = "fencedlock-zookeeper";
    static final String REDISSON_RLOCK = "redisson-rlock";
    static final String CURATOR = "curator";
    /** Not in the default run: the in-process backend, to check the harness itself (-p impl=...). */
    static final String FENCEDLOCK_LOCAL = "fencedlock-local";

    /** Long enough that a timeout means starvation, which the benchmark then reports as an error. */
    static final Duration WAIT = Duration.ofSeconds(60);

    private static final String LOCK_NAME = "bench-handoff";

    /** One contender's handle; used by one thread only. */
    interface Handle {
        void acquire() throws InterruptedException;

        void release();
    }

    abstract Handle newHandle();

    @Override
    public abstract void close();

    static Contenders open(String impl) throws InterruptedException {
        return switch (impl) {
            case FENCEDLOCK_REDLOCK -> new Fenced(Backends.fencedlock(Backends.REDLOCK_5));
            case FENCEDLOCK_ZOOKEEPER -> new Fenced(Backends.fencedlock(Backends.ZOOKEEPER));
            case FENCEDLOCK_LOCAL -> new Fenced(Backends.fencedlock(Backends.LOCAL));
            case REDISSON_RLOCK ->
                new Redisson(Backends.redisson(BenchEnv.redisUris(1).get(0)));
            case CURATOR -> new Curator(Backends.curator());
            default -> throw new IllegalArgumentException("unknown handoff implementation '" + impl + "'");
        };
    }

    private static final class Fenced extends Contenders {
        private final LockClient client;

        Fenced(LockClient client) {
            this.client = client;
        }

        @Override
        Handle newHandle() {
            FencedLock lock = client.lock(LOCK_NAME);
            return new Handle() {
                private Lease lease;

                @Override
                public void acquire() throws InterruptedException {
                    lease = lock.acquire(WAIT);
                }

                @Override
                public void release() {
                    lease.close();
                }
            };
        }

        @Override
        public void close() {
            client.close();
        }
    }

    private static final class Redisson extends Contenders {
        private final RedissonClient client;

        Redisson(RedissonClient client) {
            this.client = client;
        }

        @Override
        Handle newHandle() {
            RLock lock = client.getLock("bench:" + LOCK_NAME);
            return new Handle() {
                @Override
                public void acquire() throws InterruptedException {
                    if (!lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new IllegalStateException("starved: " + lock.getName() + " not granted in " + WAIT);
                    }
                }

                @Override
                public void release() {
                    lock.unlock();
                }
            };
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }

    private static final class Curator extends Contenders {
        private final CuratorFramework client;

        Curator(CuratorFramework client) {
            this.client = client;
        }

        @Override
        Handle newHandle() {
            InterProcessMutex mutex = new InterProcessMutex(client, "/bench-curator/" + LOCK_NAME);
            return new Handle() {
                @Override
                public void acquire() throws InterruptedException {
                    boolean granted;
                    try {
                        granted = mutex.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException("Curator acquire failed", e);
                    }
                    if (!granted) {
                        throw new IllegalStateException("starved: Curator mutex not granted in " + WAIT);
                    }
                }

                @Override
                public void release() {
                    try {
                        mutex.release();
                    } catch (Exception e) {
                        throw new IllegalStateException("Curator release failed", e);
                    }
                }
            };
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
