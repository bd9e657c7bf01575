package dev.fencedlock.benchmarks.redis;

import dev.fencedlock.LockClient;
import org.redisson.api.RedissonClient;

/**
 * The one client of a topology benchmark, fencedlock's or Redisson's, shared by all its threads:
 * hands out each thread's {@link LockCycle} and closes the client after the trial.
 */
final class TopologyClient implements AutoCloseable {
    private final LockClient fencedlock;
    private final RedissonClient redisson;

    private TopologyClient(LockClient fencedlock, RedissonClient redisson) {
        this.fencedlock = fencedlock;
        this.redisson = redisson;
    }

    static TopologyClient of(LockClient fencedlock) {
        return new TopologyClient(fencedlock, null);
    }

    static TopologyClient of(RedissonClient redisson) {
        return new TopologyClient(null, redisson);
    }

    LockCycle lock(String name) {
        return fencedlock != null ? LockCycle.of(fencedlock.lock(name)) : LockCycle.of(redisson.getLock(name));
    }

    @Override
    public void close() {
        if (fencedlock != null) {
            fencedlock.close();
        } else {
            redisson.shutdown();
        }
    }
}
