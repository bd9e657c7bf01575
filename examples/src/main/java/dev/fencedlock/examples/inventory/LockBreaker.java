package dev.fencedlock.examples.inventory;

import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.zookeeper.ZooKeeperLocks;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.utils.ZKPaths;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * Makes the lock fail under its holder: deletes the holder's grant on the backend, as a Redis node
 * that lost its data or an operator clearing a "stuck" lock would. The holder's lease still looks
 * valid, so only the fence stands between its write and the data. Thread-safe.
 */
interface LockBreaker extends AutoCloseable {

    /** Deletes whatever grant currently holds {@code lockName}. */
    void breakHolder(String lockName) throws Exception;

    @Override
    void close();

    /** The breaker for the configured backend. */
    static LockBreaker forConfig(LockConfig config) {
        return switch (config.backend()) {
            case "redlock" -> forRedlock(LockSetup.redlock(config));
            case "zookeeper" -> new ZooKeeperNodes(config);
            default ->
                throw new IllegalArgumentException(
                        "Breaking a lock is shown on the redlock and zookeeper backends, not on " + config.backend());
        };
    }

    private static LockBreaker forRedlock(RedlockSettings redlock) {
        if (redlock.sentinel().isPresent()) {
            return new SentinelMasterKey(redlock.sentinel().get(), redlock.keys());
        }
        if (!redlock.clusterNodes().isEmpty()) {
            return new ClusterKey(redlock.clusterNodes(), redlock.keys());
        }
        return new RedisKeys(redlock.nodes(), redlock.keys());
    }

    /** Deletes the lock key on every Redis node. */
    record RedisKeys(List<RedisNodeAddress> nodes, RedlockKeys keys) implements LockBreaker {
        public RedisKeys {
            nodes = List.copyOf(nodes);
        }

        @Override
        public void breakHolder(String lockName) {
            for (RedisNodeAddress node : nodes) {
                try (Jedis jedis = connect(node)) {
                    jedis.del(keys.lock(lockName));
                }
            }
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

        @Override
        public void close() {}
    }

    /** Deletes the lock key on the master the first answering Sentinel names. */
    record SentinelMasterKey(RedlockSettings.Sentinel sentinel, RedlockKeys keys) implements LockBreaker {

        @Override
        public void breakHolder(String lockName) {
            RuntimeException unanswered = new IllegalStateException(
                    "No Sentinel named the master " + sentinel.master() + " to break lock " + lockName);
            for (RedisNodeAddress node : sentinel.sentinels()) {
                List<String> master;
                try (Jedis jedis = RedisKeys.connect(node)) {
                    master = jedis.sentinelGetMasterAddrByName(sentinel.master());
                } catch (RuntimeException e) {
                    unanswered.addSuppressed(e);
                    continue;
                }
                if (master == null || master.size() < 2) {
                    continue;
                }
                try (Jedis jedis =
                        RedisKeys.connect(sentinel.dataNode(master.get(0), Integer.parseInt(master.get(1))))) {
                    jedis.del(keys.lock(lockName));
                }
                return;
            }
            throw unanswered;
        }

        @Override
        public void close() {}
    }

    /**
     * Deletes the lock key on the master of a Redis Cluster that owns its slot: the first seed that
     * answers is asked, and its {@code MOVED} reply names the owner when it is another master.
     */
    record ClusterKey(List<RedisNodeAddress> seeds, RedlockKeys keys) implements LockBreaker {
        public ClusterKey {
            seeds = List.copyOf(seeds);
        }

        @Override
        public void breakHolder(String lockName) {
            String key = keys.lock(lockName);
            RuntimeException unanswered = new IllegalStateException(
                    "No seed of the Redis Cluster answered to break lock " + lockName + " (" + key + ")");
            for (RedisNodeAddress seed : seeds) {
                try (Jedis jedis = RedisKeys.connect(seed)) {
                    jedis.del(key);
                    return;
                } catch (JedisMovedDataException moved) {
                    try (Jedis jedis = RedisKeys.connect(seed, moved.getTargetNode())) {
                        jedis.del(key);
                    }
                    return;
                } catch (RuntimeException e) {
                    unanswered.addSuppressed(e);
                }
            }
            throw unanswered;
        }

        @Override
        public void close() {}
    }

    /** Deletes the holder's node, the contender with the lowest sequence number. */
    final class ZooKeeperNodes implements LockBreaker {
        private final CuratorFramework curator;
        private final String basePath;

        ZooKeeperNodes(LockConfig config) {
            ZooKeeperSettings settings = LockSetup.zookeeper(config);
            this.basePath = settings.basePath();
            this.curator = CuratorFrameworkFactory.newClient(settings.connect().orElseThrow(), new RetryOneTime(100));
            curator.start();
        }

        @Override
        public void breakHolder(String lockName) throws Exception {
            if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Could not reach ZooKeeper to break lock " + lockName);
            }
            String lockPath = ZooKeeperLocks.lockPath(basePath, lockName);
            List<String> contenders = curator.getChildren().forPath(lockPath);
            String holder = contenders.stream()
                    .min(Comparator.comparing(ZooKeeperNodes::sequence))
                    .orElseThrow(() -> new IllegalStateException("Lock " + lockName + " has no holder to break"));
            curator.delete().forPath(ZKPaths.makePath(lockPath, holder));
        }

        private static String sequence(String node) {
            return node.substring(Math.max(0, node.length() - 10));
        }

        @Override
        public void close() {
            curator.close();
        }
    }
}
