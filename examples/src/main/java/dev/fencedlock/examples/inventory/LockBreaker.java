package dev.fencedlock.examples.inventory;

import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.redlock.RedlockKeys;
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
            case "redlock" -> new RedisKeys(LockSetup.redlock(config).nodes());
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
                DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                        .database(node.database())
                        .ssl(node.tls());
                node.user().ifPresent(client::user);
                node.password().ifPresent(client::password);
                try (Jedis jedis = new Jedis(new HostAndPort(node.host(), node.port()), client.build())) {
                    jedis.del(RedlockKeys.lockKey(lockName));
                }
            }
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
