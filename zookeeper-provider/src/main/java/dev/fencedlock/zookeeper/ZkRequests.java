package dev.fencedlock.zookeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Single requests on a raw ZooKeeper handle, as futures: each is sent once (no retry policy, no
 * wait for a connection), and its answer completes the future on ZooKeeper's event thread. A
 * caller that stops waiting ({@link #await}) leaves nothing blocked; the answer still arrives,
 * later, to whatever the caller chained on the future. Paths are full paths (in the namespace).
 *
 * <p>Thread-safe (stateless).
 */
final class ZkRequests {
    private ZkRequests() {}

    /** The answer to a {@code multi}: its result code and, unless the request failed as a whole, each op's result. */
    record MultiAnswer(KeeperException.Code code, List<OpResult> results) {
        boolean ok() {
            return code == KeeperException.Code.OK;
        }

        /** Whether op {@code index} failed with {@code expected}. */
        boolean failedWith(int index, KeeperException.Code expected) {
            return results != null
                    && results.size() > index
                    && results.get(index) instanceof OpResult.ErrorResult error
                    && error.getErr() == expected.intValue();
        }
    }

    /** A node's data and stat. */
    record Data(byte[] data, Stat stat) {}

    /** Sends a multi; the future completes with its answer, also when it failed. */
    static CompletableFuture<MultiAnswer> multi(ZooKeeper zooKeeper, List<Op> ops) {
        CompletableFuture<MultiAnswer> answer = new CompletableFuture<>();
        zooKeeper.multi(
                ops,
                (rc, path, ctx, results) -> answer.complete(new MultiAnswer(KeeperException.Code.get(rc), results)),
                null);
        return answer;
    }

    /** Reads a node; fails with the server's {@link KeeperException} (e.g. {@code NONODE}). */
    static CompletableFuture<Data> getData(ZooKeeper zooKeeper, String path) {
        CompletableFuture<Data> answer = new CompletableFuture<>();
        zooKeeper.getData(path, false, (rc, p, ctx, data, stat) -> settle(answer, rc, p, new Data(data, stat)), null);
        return answer;
    }

    /** Lists a node's children; fails with the server's {@link KeeperException}. */
    static CompletableFuture<List<String>> getChildren(ZooKeeper zooKeeper, String path) {
        CompletableFuture<List<String>> answer = new CompletableFuture<>();
        zooKeeper.getChildren(path, false, (rc, p, ctx, children) -> settle(answer, rc, p, children), null);
        return answer;
    }

    /**
     * Reads a node's stat and leaves {@code watcher} on it; completes with null if the node does
     * not exist (the watcher then fires on its creation).
     */
    static CompletableFuture<Stat> exists(ZooKeeper zooKeeper, String path, Watcher watcher) {
        CompletableFuture<Stat> answer = new CompletableFuture<>();
        zooKeeper.exists(
                path,
                watcher,
                (rc, p, ctx, stat) -> {
                    if (KeeperException.Code.get(rc) == KeeperException.Code.NONODE) {
                        answer.complete(null);
                    } else {
                        settle(answer, rc, p, stat);
                    }
                },
                null);
        return answer;
    }

    /** Deletes a node if its version is {@code version} (-1: any). */
    static CompletableFuture<Void> delete(ZooKeeper zooKeeper, String path, int version) {
        CompletableFuture<Void> answer = new CompletableFuture<>();
        zooKeeper.delete(path, version, (rc, p, ctx) -> settle(answer, rc, p, null), null);
        return answer;
    }

    /**
     * Creates every missing ancestor of {@code path} (a path relative to {@code curator}'s namespace)
     * with {@code mode}, with the ACLs {@code curator} gives new nodes; one request per level, each
     * waiting at most what {@code bound} allows. An ancestor that appears meanwhile is fine.
     *
     * @throws TimeoutException if a request had no answer in time
     */
    static void createAncestors(
            CuratorFramework curator, ZooKeeper zooKeeper, String path, CreateMode mode, AcquisitionBound bound)
            throws KeeperException, InterruptedException, TimeoutException {
        String parent = ZKPaths.getPathAndNode(path).getPath();
        List<String> levels = new ArrayList<>();
        for (String at = parent;
                !at.equals("/");
                at = ZKPaths.getPathAndNode(at).getPath()) {
            levels.add(0, at);
        }
        for (String level : levels) {
            MultiAnswer answer = await(
                    multi(zooKeeper, List.of(createOp(curator, level, mode, new byte[0]))),
                    bound.requestWaitNanos(),
                    "the create of " + level);
            if (!answer.ok() && !answer.failedWith(0, KeeperException.Code.NODEEXISTS)) {
                throw KeeperException.create(answer.code(), level);
            }
        }
    }

    /** The op that creates {@code path} (relative to the namespace) as {@code curator} would, uncompressed. */
    static Op createOp(CuratorFramework curator, String path, CreateMode mode, byte[] data) {
        try {
            return curator.transactionOp()
                    .create()
                    .uncompressed()
                    .withMode(mode)
                    .forPath(path, data)
                    .get();
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot build the create of " + path + ": " + e, e);
        }
    }

    private static <T> void settle(CompletableFuture<T> answer, int rc, String path, T value) {
        KeeperException.Code code = KeeperException.Code.get(rc);
        if (code == KeeperException.Code.OK) {
            answer.complete(value);
        } else {
            answer.completeExceptionally(KeeperException.create(code, path));
        }
    }

    /**
     * Waits at most {@code waitNanos} for an answer.
     *
     * @param what the request, for the timeout's message
     * @throws KeeperException the server's error
     * @throws TimeoutException if no answer came in time; the request may still be applied later
     */
    static <T> T await(CompletableFuture<T> answer, long waitNanos, String what)
            throws KeeperException, InterruptedException, TimeoutException {
        try {
            return answer.get(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new TimeoutException("no answer from the server to " + what + " within "
                    + TimeUnit.NANOSECONDS.toMillis(Math.max(0, waitNanos)) + "ms");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KeeperException keeper) {
                throw keeper;
            }
            throw new IllegalStateException("unexpected failure of a ZooKeeper request", e.getCause());
        }
    }
}
