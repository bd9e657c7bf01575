package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.TokenOrder;
import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
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
 * issued last without a second write.
 *
 * <p>A token is issued when a contender <i>joins</i> the lock's line, in the same transaction as
 * the create of its lock node ({@link LockNodeDriver}), so a grant costs the server two writes, the
 * create and the delete, as Curator's own mutex does:
 *
 * <ol>
 *   <li>take the token node's last known state (data {@code d}, modification time {@code m},
 *       version {@code v}): the one this client wrote or read last for the lock name ({@link
 *       TokenHints}), else a read; the last issued token is {@code p = next(d, m)}, or 0 if there is
 *       no node;
 *   <li>in one transaction: create the ephemeral-sequential lock node, and set the token node's
 *       data to {@code p} if its version is still {@code v} ({@link #recordOp});
 *   <li>the contender's token is {@code next(p, m')}, {@code m'} the modification time the write
 *       returned ({@link #written}): above {@code p}, and at least the leader's clock at the
 *       transaction shifted left 16 bits.
 * </ol>
 *
 * <p>A version that changed (another contender joined between) fails the whole transaction, so no
 * lock node is created without its token; the contender reads the node again and retries. Tokens
 * therefore grow in the order of the transactions, which is the order of the sequential suffixes
 * ZooKeeper gives the lock nodes, which is the order in which the recipe grants the lock. A
 * contender that gives up while waiting deletes its node and leaves a gap in the tokens, nothing
 * else. So tokens of one lock name are strictly increasing across grants in one ensemble whatever
 * the clocks do, also when the container was reaped (which restarts the sequential suffix; it is
 * reaped only when empty, so no earlier contender is left in line) and when transaction ids
 * restart. An ensemble rebuilt without its data loses the token nodes; its first token is then
 * {@code t << 16}, above every earlier one under {@link TokenOrder}'s clock assumption. A token
 * node whose data is not a token (written by hand) is treated as absent, with a warning: order
 * then rests on the clock alone.
 *
 * <p><b>Join time, not grant time.</b> The clock part of a token is the leader's clock when the
 * contender joined the line, not when it was granted. For one backend this changes nothing. Across
 * backends ({@link TokenOrder}), the first grant after a switch to this backend is at least the
 * join time of its contender shifted left 16 bits, so the clock assumption's gap counts from the
 * moment the contender joined: a contender that joined while another backend was still granting
 * the same name, and was granted later, may carry a token below that backend's last ones. The
 * fence then refuses its writes as stale (liveness, never safety), as for any clock outside the
 * assumption.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LockTokens {
    private static final Logger log = LoggerFactory.getLogger(LockTokens.class);

    private final CuratorFramework curator;
    private final TokenHints hints = new TokenHints();

    LockTokens(CuratorFramework curator) {
        this.curator = curator;
    }

    /**
     * The token node's state as this client last wrote or read it ({@link TokenHints}), else as a
     * read finds it now.
     *
     * @return what the node says, or {@link Record#ABSENT}
     */
    Record lastKnown(String tokenPath) throws Exception {
        Record hint = hints.get(tokenPath);
        return hint != null ? hint : read(tokenPath);
    }

    /** Forgets what this client knew of a token node, which turned out to be stale. */
    void forget(String tokenPath) {
        hints.forget(tokenPath);
    }

    /**
     * Reads a token node through Curator (retrying as its policy says) and remembers what it found.
     *
     * @return what the node says, or {@link Record#ABSENT}
     */
    Record read(String tokenPath) throws Exception {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = curator.getData().storingStatIn(stat).forPath(tokenPath);
        } catch (KeeperException.NoNodeException e) {
            hints.forget(tokenPath);
            return Record.ABSENT;
        }
        Record record = Record.of(tokenPath, data, stat);
        hints.remember(tokenPath, record);
        return record;
    }

    /**
     * The operation that records the next token in a transaction: sets the token node's data to
     * {@code record}'s last issued token if the node's version is still {@code record}'s.
     *
     * @throws IllegalStateException if {@code record} is {@link Record#ABSENT} (a version of -1
     *     would make the write unconditional)
     */
    CuratorOp recordOp(String tokenPath, Record record) throws Exception {
        if (!record.exists()) {
            throw new IllegalStateException("token node " + tokenPath + " must exist before a token is recorded on it");
        }
        byte[] data = Long.toString(record.lastIssued()).getBytes(StandardCharsets.US_ASCII);
        return curator.transactionOp().setData().withVersion(record.version()).forPath(tokenPath, data);
    }

    /**
     * The token node after {@link #recordOp} of {@code before} succeeded with {@code written}, now
     * remembered: its last issued token, {@code next(before.lastIssued, mtime)}, is the token of the
     * transaction's contender.
     */
    Record written(String tokenPath, Record before, Stat written) {
        Record after = new Record(true, TokenOrder.next(before.lastIssued(), written.getMtime()), written.getVersion());
        hints.remember(tokenPath, after);
        return after;
    }

    /** Creates the token node with "no earlier token"; a node that appeared meanwhile is fine. */
    void createTokenNode(String tokenPath) throws Exception {
        try {
            curator.create().creatingParentsIfNeeded().forPath(tokenPath, "0".getBytes(StandardCharsets.US_ASCII));
        } catch (KeeperException.NodeExistsException e) {
            // Another client's first grant created it; read it.
        }
    }

    /**
     * What one read (or this client's last write) of a token node found: the last token issued
     * ({@code next(data, mtime)}), and the node's version for the conditional write; {@link
     * #ABSENT} when there is no node.
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
