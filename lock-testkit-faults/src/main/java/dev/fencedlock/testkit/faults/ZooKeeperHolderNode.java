package dev.fencedlock.testkit.faults;

import dev.fencedlock.zookeeper.ZooKeeperLocks;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * The {@code zookeeper} backend: deletes the holder's node, the child of {@link
 * ZooKeeperLocks#lockPath} with the lowest sequence number. The token node stays, so the next
 * grant's token is larger.
 */
final class ZooKeeperHolderNode implements GrantRemover {
    /** Every contender's node name ends in the ten-digit sequence number ZooKeeper appended. */
    private static final int SEQUENCE_DIGITS = 10;

    private final ZooKeeperSettings settings;

    ZooKeeperHolderNode(ZooKeeperSettings settings) {
        this.settings = settings;
    }

    @Override
    public void remove(String lockName) {
        String lockPath = ZooKeeperLocks.lockPath(settings.basePath(), lockName);
        if (settings.curator().isPresent()) {
            removeHolder(settings.curator().get(), lockName, lockPath);
            return;
        }
        String connect = settings.connect()
                .orElseThrow(() -> new IllegalStateException("The ZooKeeper settings name no ensemble: " + settings));
        int sessionMillis = Math.toIntExact(settings.sessionTimeout().toMillis());
        try (CuratorFramework curator =
                CuratorFrameworkFactory.newClient(connect, sessionMillis, sessionMillis, new RetryOneTime(100))) {
            curator.start();
            removeHolder(curator, lockName, lockPath);
        }
    }

    private void removeHolder(CuratorFramework curator, String lockName, String lockPath) {
        try {
            if (!curator.blockUntilConnected(
                    Math.toIntExact(settings.sessionTimeout().toMillis()), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("Could not reach ZooKeeper within " + settings.sessionTimeout()
                        + " to take lock '" + lockName + "' away");
            }
            List<String> contenders;
            try {
                contenders = curator.getChildren().forPath(lockPath);
            } catch (KeeperException.NoNodeException e) {
                contenders = List.of();
            }
            String holder = contenders.stream()
                    .min(Comparator.comparing(ZooKeeperHolderNode::sequence))
                    .orElseThrow(() -> GrantRemover.notHeld(lockName, "in ZooKeeper (no node under " + lockPath + ")"));
            curator.delete().forPath(ZKPaths.makePath(lockPath, holder));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while taking lock '" + lockName + "' away", e);
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            // Curator declares Exception; what it throws here is ZooKeeper's KeeperException
            throw new IllegalStateException("ZooKeeper failed to take lock '" + lockName + "' away: " + e, e);
        }
    }

    private static String sequence(String node) {
        return node.substring(Math.max(0, node.length() - SEQUENCE_DIGITS));
    }
}
