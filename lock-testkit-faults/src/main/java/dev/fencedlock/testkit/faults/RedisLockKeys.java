package dev.fencedlock.testkit.faults;

import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * The {@code redlock} backend: deletes the lock key ({@link RedlockKeys#lock}) where the backend
 * keeps it, and nothing else, so the token counter stays and the next grant's token is larger.
 */
abstract sealed class RedisLockKeys implements GrantRemover {
    final RedlockKeys keys;

    private RedisLockKeys(RedlockKeys keys) {
        this.keys = keys;
    }

    static RedisLockKeys of(RedlockSettings settings) {
        if (settings.sentinel().isPresent()) {
            return new SentinelMaster(settings.sentinel().get(), settings.keys());
        }
        if (!settings.clusterNodes().isEmpty()) {
            return new ClusterSlotMaster(settings.clusterNodes(), settings.keys());
        }
        return new EveryNode(settings.nodes(), settings.keys());
    }

    static Jedis connect(RedisNodeAddress node) {
        return connect(node, new HostAndPort(node.host(), node.port()));
    }

    /** A connection to {@code address} with {@code node}'s credentials, database and TLS. */
    static Jedis connect(RedisNodeAddress node, HostAndPort address) {
        DefaultJedisClientConfig.Builder client =
                DefaultJedisClientConfig.builder().database(node.database()).ssl(node.tls());
        node.user().ifPresent(client::user);
        node.password().ifPresent(client::password);
        return new Jedis(address, client.build());
    }

    /**
     * Independent masters: the key is deleted on every node that answers. A node that does not
     * answer cannot grant the lock to the next holder either, so it is skipped; the call fails only
     * when no node held the key.
     */
    static final class EveryNode extends RedisLockKeys {
        private final List<RedisNodeAddress> nodes;

        EveryNode(List<RedisNodeAddress> nodes, RedlockKeys keys) {
            super(keys);
            this.nodes = List.copyOf(nodes);
        }

        @Override
        public void remove(String lockName) {
            String key = keys.lock(lockName);
            long deleted = 0;
            RuntimeException unanswered = null;
            for (RedisNodeAddress node : nodes) {
                try (Jedis jedis = connect(node)) {
                    deleted += jedis.del(key);
                } catch (RuntimeException e) {
                    if (unanswered == null) {
                        unanswered = new IllegalStateException("A Redis node did not answer");
                    }
                    unanswered.addSuppressed(e);
                }
            }
            if (deleted == 0) {
                IllegalStateException notHeld = GrantRemover.notHeld(lockName, "on any of " + nodes + " (" + key + ")");
                if (unanswered != null) {
                    notHeld.addSuppressed(unanswered);
                }
                throw notHeld;
            }
        }
    }

    /** A Sentinel group: the key is deleted on the master the first answering Sentinel names. */
    static final class SentinelMaster extends RedisLockKeys {
        private final RedlockSettings.Sentinel sentinel;

        SentinelMaster(RedlockSettings.Sentinel sentinel, RedlockKeys keys) {
            super(keys);
            this.sentinel = sentinel;
        }

        @Override
        public void remove(String lockName) {
            String key = keys.lock(lockName);
            IllegalStateException unanswered = new IllegalStateException(
                    "No Sentinel named the master " + sentinel.master() + " to take lock '" + lockName + "' away");
            for (RedisNodeAddress node : sentinel.sentinels()) {
                List<String> master;
                try (Jedis jedis = connect(node)) {
                    master = jedis.sentinelGetMasterAddrByName(sentinel.master());
                } catch (RuntimeException e) {
                    unanswered.addSuppressed(e);
                    continue;
                }
                if (master == null || master.size() < 2) {
                    continue;
                }
                RedisNodeAddress data = sentinel.dataNode(master.get(0), Integer.parseInt(master.get(1)));
                try (Jedis jedis = connect(data)) {
                    if (jedis.del(key) == 0) {
                        throw GrantRemover.notHeld(lockName, "on the master " + data + " (" + key + ")");
                    }
                }
                return;
            }
            throw unanswered;
        }
    }

    /**
     * A Redis Cluster: the key is deleted on the master of its slot. The first seed that answers
     * is asked, and its {@code MOVED} reply names the owner when it is another master.
     */
    static final class ClusterSlotMaster extends RedisLockKeys {
        private final List<RedisNodeAddress> seeds;

        ClusterSlotMaster(List<RedisNodeAddress> seeds, RedlockKeys keys) {
            super(keys);
            this.seeds = List.copyOf(seeds);
        }

        @Override
        public void remove(String lockName) {
            String key = keys.lock(lockName);
            IllegalStateException unanswered = new IllegalStateException(
                    "No seed of the Redis Cluster answered to take lock '" + lockName + "' away (" + key + ")");
            for (RedisNodeAddress seed : seeds) {
                long deleted;
                try (Jedis jedis = connect(seed)) {
                    deleted = jedis.del(key);
                } catch (JedisMovedDataException moved) {
                    try (Jedis jedis = connect(seed, moved.getTargetNode())) {
                        deleted = jedis.del(key);
                    }
                } catch (RuntimeException e) {
                    unanswered.addSuppressed(e);
                    continue;
                }
                if (deleted == 0) {
                    throw GrantRemover.notHeld(lockName, "in the Redis Cluster (" + key + ")");
                }
                return;
            }
            throw unanswered;
        }
    }
}
