package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.spi.TokenOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issues the {@code zookeeper} backend's fencing tokens in the one token order of all backends
 * ({@link TokenOrder}): {@code max(t << 16, previous + 1)}, where {@code t} is the ZooKeeper
 * leader's wall clock when the token is recorded and {@code previous} the token issued before it
 * for the same lock name.
 *
 * <p>Each lock name has one persistent <i>token node</i>, {@code base-path/%tokens/<encoded
 * name>} ({@link ZooKeeperLocks#tokenPath}), outside the lock's container node, so that it
 * survives the container being reaped. Its data is the token issued before the latest one, in
 * decimal; the latest token is {@code next(data, mtime)}, the node's data and modification time
 * (the leader's clock at the write, in milliseconds). So the node always says which token was
 * issued last without a second write. Issuing a token, once the holder's lock node is first in
 * line:
 *
 * <ol>
 *   <li>read the token node (data {@code d}, modification time {@code m}, version {@code v}); the
 *       last issued token is {@code p = next(d, m)}, or 0 if there is no node;
 *   <li>in one transaction: check that the holder's lock node still exists, and set the token
 *       node's data to {@code p} if its version is still {@code v};
 *   <li>the new token is {@code next(p, m')}, {@code m'} the modification time the write returned:
 *       above {@code p}, and at least the leader's clock at the write shifted left 16 bits.
 * </ol>
 *
 * <p>A version that changed (another writer came between) or a token node that is missing starts
 * again from step 1; only a live holder's transaction can write, because its lock node is checked
 * in the same transaction. Tokens of one lock name are therefore strictly increasing across
 * grants in one ensemble whatever the clocks do, also when the container was reaped (which
 * restarts the sequential suffix) and when transaction ids restart. An ensemble rebuilt without
 * its data loses the token nodes; its first token is then {@code t << 16}, above every earlier
 * one under {@link TokenOrder}'s clock assumption. A token node whose data is not a token
 * (written by hand) is treated as absent, with a warning: order then rests on the clock alone.
 *
 * <p>Cost: step 1 is sent before the lock node's create ({@link #prefetch}), pipelined on the same
 * session, so it adds no round trip; step 2 adds one. A holder that waited in line reads again
 * when its prefetched version has gone stale (one more round trip), and the first grant of a
 * lock name creates the token node. The write also confirms the grant's ownership, so a grant
 * that waited in line needs no separate ownership read.
 *
 * <p>Thread-safety: thread-safe (stateless besides the client).
 */
final class LockTokens {
    private static final Logger log = LoggerFactory.getLogger(LockTokens.class);

    private final CuratorFramework curator;
    private final LockNodes nodes;
    private final MonotonicClock clock;

    LockTokens(CuratorFramework curator, LockNodes nodes, MonotonicClock clock) {
        this.curator = curator;
        this.nodes = nodes;
        this.clock = clock;
    }

    /**
     * Sends the read of a token node now, without waiting. The answer may be stale by the time it
     * is used; {@link #issue} then reads again.
     *
     * @return the pending read; failed at once when not connected, so that {@link #issue} reads
     *     again
     */
    CompletableFuture<Record> prefetch(String tokenPath) {
        try {
            return read(nodes.connectedHandle(), tokenPath);
        } catch (KeeperException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Records and returns the next token of the lock whose token node is {@code tokenPath}, for the
     * holder of lock node {@code lockNodePath} on session {@code sessionId}.
     *
     * @param prefetched a read from {@link #prefetch}, used if still current
     * @param waitNanos how long to wait for each answer
     * @throws KeeperException.NoNodeException if the lock node is gone (the grant is lost)
     * @throws KeeperException for a connection problem or another server error
     * @throws TimeoutException if an answer did not come in time
     */
    Issued issue(
            String tokenPath, String lockNodePath, long sessionId, CompletableFuture<Record> prefetched, long waitNanos)
            throws KeeperException, InterruptedException, TimeoutException {
        CompletableFuture<Record> pending = prefetched;
        while (true) {
            ZooKeeper zooKeeper = nodes.connectedHandle();
            if (zooKeeper.getSessionId() != sessionId) {
                throw new KeeperException.SessionExpiredException();
            }
            Record record = pending == null ? null : awaitOrNull(pending, waitNanos);
            if (record == null) {
                record = LockNodes.await(read(zooKeeper, tokenPath), waitNanos);
            }
            if (!record.exists()) {
                createTokenNode(tokenPath);
                pending = null;
                continue;
            }
            long sentNanos = clock.nanoTime();
            Stat written = LockNodes.await(write(zooKeeper, tokenPath, lockNodePath, record), waitNanos);
            if (written == null) {
                log.debug("Token node {} changed or vanished before this write; reading it again", tokenPath);
                pending = null;
                continue;
            }
            return new Issued(TokenOrder.next(record.lastIssued(), written.getMtime()), sentNanos);
        }
    }

    private CompletableFuture<Record> read(ZooKeeper zooKeeper, String tokenPath) {
        CompletableFuture<Record> answer = new CompletableFuture<>();
        zooKeeper.getData(
                nodes.inNamespace(tokenPath),
                false,
                (rc, path, ctx, data, stat) -> {
                    KeeperException.Code code = KeeperException.Code.get(rc);
                    if (code == KeeperException.Code.OK) {
                        answer.complete(Record.of(tokenPath, data, stat));
                    } else if (code == KeeperException.Code.NONODE) {
                        answer.complete(Record.ABSENT);
                    } else {
                        answer.completeExceptionally(KeeperException.create(code, path));
                    }
                },
                null);
        return answer;
    }

    /**
     * The conditional write of step 2. Completes with the token node's new stat; with null if the
     * token node changed or vanished since {@code record} was read (read again); exceptionally
     * with {@link KeeperException.NoNodeException} for the lock node if the grant's node is gone,
     * or with the server's error.
     */
    private CompletableFuture<Stat> write(ZooKeeper zooKeeper, String tokenPath, String lockNodePath, Record record) {
        byte[] data = Long.toString(record.lastIssued()).getBytes(StandardCharsets.US_ASCII);
        List<Op> ops = List.of(
                Op.check(nodes.inNamespace(lockNodePath), -1),
                Op.setData(nodes.inNamespace(tokenPath), data, record.version()));
        CompletableFuture<Stat> answer = new CompletableFuture<>();
        zooKeeper.multi(
                ops,
                (rc, path, ctx, results) -> {
                    KeeperException.Code code = KeeperException.Code.get(rc);
                    if (code == KeeperException.Code.OK) {
                        answer.complete(((OpResult.SetDataResult) results.get(1)).getStat());
                    } else if (failedFirst(results, KeeperException.Code.NONODE)) {
                        answer.completeExceptionally(KeeperException.create(KeeperException.Code.NONODE, lockNodePath));
                    } else if (code == KeeperException.Code.BADVERSION || code == KeeperException.Code.NONODE) {
                        answer.complete(null);
                    } else {
                        answer.completeExceptionally(KeeperException.create(code, tokenPath));
                    }
                },
                null);
        return answer;
    }

    /** Whether a failed transaction's first operation failed with {@code code}. */
    private static boolean failedFirst(List<OpResult> results, KeeperException.Code code) {
        return results != null
                && !results.isEmpty()
                && results.get(0) instanceof OpResult.ErrorResult error
                && error.getErr() == code.intValue();
    }

    /** Creates the token node with "no earlier token"; a node that appeared meanwhile is fine. */
    private void createTokenNode(String tokenPath) throws KeeperException, InterruptedException {
        try {
            curator.create().creatingParentsIfNeeded().forPath(tokenPath, "0".getBytes(StandardCharsets.US_ASCII));
        } catch (KeeperException.NodeExistsException e) {
            // Another client's first grant created it; read it.
        } catch (KeeperException | InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw (KeeperException) new KeeperException.ConnectionLossException().initCause(e);
        }
    }

    private static Record awaitOrNull(CompletableFuture<Record> pending, long waitNanos) throws InterruptedException {
        try {
            return LockNodes.await(pending, waitNanos);
        } catch (KeeperException | TimeoutException e) {
            return null;
        }
    }

    /** A token issued: its value, and when the write that also confirmed the lock node was sent. */
    record Issued(long token, long sentNanos) {}

    /**
     * What one read of a token node found: the last token issued ({@code next(data, mtime)}), and
     * the node's version for the conditional write; {@link #ABSENT} when there is no node.
     */
    record Record(boolean exists, long lastIssued, int version) {
        static final Record ABSENT = new Record(false, 0, -1);

        static Record of(String tokenPath, byte[] data, Stat stat) {
            long previous = parse(tokenPath, data);
            return new Record(true, TokenOrder.next(previous, stat.getMtime()), stat.getVersion());
        }

        private static long parse(String tokenPath, byte[] data) {
            String text = data == null ? "" : new String(data, StandardCharsets.US_ASCII);
            try {
                long value = Long.parseLong(text);
                if (value >= 0 && value < Long.MAX_VALUE) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            log.warn(
                    "Token node {} holds '{}', which is no token; the next token rests on the clock alone",
                    tokenPath,
                    text);
            return 0;
        }
    }
}
