package dev.fencedlock.integration;

import dev.fencedlock.LockClient;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration lock registry over a fencedlock {@link LockClient}, so over any of its
 * backends, with a fencing token behind every held lock. Drop-in for {@code RedisLockRegistry},
 * {@code JdbcLockRegistry} or {@code ZookeeperLockRegistry}, including under {@code
 * LockRegistryLeaderInitiator}.
 *
 * <p>The locks it hands out ({@link FencedDistributedLock}) follow the {@link
 * java.util.concurrent.locks.Lock} contract as Spring Integration's registries give it: reentrant
 * per thread, owned by the thread that locked it, held in the backend for a TTL (this registry's,
 * or one per acquisition) that a re-entrant acquisition or {@link #renewLock} restarts, and an
 * {@code unlock} after the lease ran out throws {@link java.util.ConcurrentModificationException}
 * without touching the lock's new holder. The lease and its token are {@link
 * FencedDistributedLock#lease()}; with the fencedlock Spring Boot starter on the class path, the
 * owning thread's transactions are fenced while it holds the lock.
 *
 * <p>{@link #obtain} returns the same instance per key until {@link #expireUnusedOlderThan} drops
 * it. Thread-safe.
 */
public final class FencedLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {
    private final LockClient client;
    private final Duration ttl;
    private final Map<String, FencedDistributedLock> locks = new ConcurrentHashMap<>();

    /**
     * A registry whose locks are held for the client's {@code fencedlock.lease-time} unless renewed.
     *
     * @throws NullPointerException if {@code client} is null
     */
    public FencedLockRegistry(LockClient client) {
        this(client, Objects.requireNonNull(client, "client").config().leaseTime());
    }

    /**
     * A registry whose locks are held for {@code ttl} unless renewed; the client stays the caller's
     * to close.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code ttl} is zero or negative
     */
    public FencedLockRegistry(LockClient client, Duration ttl) {
        this.client = Objects.requireNonNull(client, "client");
        this.ttl = FencedDistributedLock.requirePositive(ttl, "ttl");
    }

    /**
     * The lock for {@code lockKey}, the same instance for the same key while it is cached.
     *
     * @throws IllegalArgumentException if {@code lockKey} is not a String, or not a valid lock name
     */
    @Override
    public FencedDistributedLock obtain(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lockKey must be a String, got "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        return locks.computeIfAbsent(key, name -> new FencedDistributedLock(client.lock(name), ttl));
    }

    /** Drops the cached locks that nobody holds and that were last used more than {@code age} ms ago. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long cutoff = System.currentTimeMillis() - age;
        locks.values().removeIf(lock -> lock.isUnusedSince(cutoff));
    }

    /**
     * Restarts the TTL of the lock the calling thread holds under {@code lockKey}.
     *
     * @throws IllegalStateException if the calling thread does not hold it
     * @throws java.util.ConcurrentModificationException if its lease ran out or was lost
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, ttl);
    }

    /** Like {@link #renewLock(Object)}, holding it for {@code ttl} from now. */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        FencedDistributedLock lock = lockKey instanceof String key ? locks.get(key) : null;
        if (lock == null) {
            throw new IllegalStateException("No lock for key " + lockKey + " is held in this registry");
        }
        lock.renew(ttl);
    }

    @Override
    public String toString() {
        return "FencedLockRegistry[" + client.config().backend() + ", ttl " + ttl + "]";
    }
}
