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
            case "redlock" ->
                LockSetup.redlock(config)
                        .sentinel()
                        .<LockBreaker>map(SentinelMasterKey::new)
                        .orElseGet(() -> new RedisKeys(LockSetup.redlock(config).nodes()));
            case "zookeeper" -> new ZooKeeperNodes(config);
            default ->
                throw new IllegalArgumentException(
                        "Breaking a lock is shown on the redlock and zookeeper backends, not on " + config.backend());
        };
    }

    /** Deletes the lock key on every Redis node. */
    final class RedisKeys implements LockBreaker {
        private final List<RedisNodeAddress> nodes;

        RedisKeys(List<RedisNodeAddress> nodes) {
            this.nodes = List.copyOf(nodes);
        }

        @Override
        public void breakHolder(String lockName) {
            for (RedisNodeAddress node : nodes) {
                try (Jedis jedis = connect(node)) {
                    jedis.del(RedlockKeys.lockKey(lockName));
                }
            }
        }

        static Jedis connect(RedisNodeAddress node) {
            DefaultJedisClientConfig.Builder client =
                    DefaultJedisClientConfig.builder().database(node.database()).ssl(node.tls());
            node.user().ifPresent(client::user);
            node.password().ifPresent(client::password);
            return new Jedis(new HostAndPort(node.host(), node.port()), client.build());
        }

        @Override
        public void close() {}
    }

    /** Deletes the lock key on the master the first answering Sentinel names. */
    final class SentinelMasterKey implements LockBreaker {
        private final RedlockSettings.Sentinel sentinel;

        SentinelMasterKey(RedlockSettings.Sentinel sentinel) {
            this.sentinel = sentinel;
        }

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
                    jedis.del(RedlockKeys.lockKey(lockName));
                }
                return;
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
