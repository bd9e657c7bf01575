package dev.fencedlock.jpa;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.internal.local.LocalLockTable;
import jakarta.persistence.OptimisticLockException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Everything of {@link AbstractFencedWriteIT} with the lock fence on ({@link
 * FencingSettings#LOCK_FENCE}), and what only the lock fence does: its row per lock, how commits
 * under one lock serialise on it, and how it behaves under REPEATABLE READ. A transaction that
 * another holder's commit is in the middle of is played by a plain JDBC transaction on the fence
 * table.
 */
abstract class AbstractLockFenceIT extends AbstractFencedWriteIT {

    @Override
    final boolean lockFence() {
        return true;
    }

    @Test
    void theFirstFencedCommitUnderALockCreatesItsRowAndLaterOnesAdvanceIt() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        assertThat(lockFenceOf(lock)).isNull();

        long first = take(lock, id, 1);
        assertThat(lockFenceOf(lock)).isEqualTo(first);

        long readOnly = Fencing.inTransaction(lock, WAIT, emf, em -> {
            em.find(Item.class, id);
            return Fencing.currentLease().orElseThrow().token();
        });
        assertThat(readOnly).isGreaterThan(first);
        assertThat(lockFenceOf(lock)).as("a transaction that wrote nothing").isEqualTo(first);

        assertThatThrownBy(() -> Fencing.inTransaction(lock, WAIT, emf, em -> {
                    em.find(Item.class, id).take(1);
                    em.flush();
                    throw new IllegalStateException("work failed");
                }))
                .hasMessage("work failed");
        assertThat(lockFenceOf(lock)).as("a transaction that rolled back").isEqualTo(first);

        long third = take(lock, id, 1);
        assertThat(lockFenceOf(lock)).isEqualTo(third);
        assertThat(quantityOf(id)).isEqualTo(8);
    }

    /**
     * Holder 6 is committing and has set the lock's fence row to its token, uncommitted; holder 5
     * commits meanwhile. Holder 5's commit waits for holder 6's, then compares against its token and
     * is refused, whether holder 6 created the row or updated it. (Had holder 5 reached the row after
     * holder 6's commit, the outcome would be the same.)
     */
    @ParameterizedTest(name = "row existed: {0}")
    @ValueSource(booleans = {true, false})
    void aCommitRacingANewerHoldersCommitIsRefused(boolean rowExisted) throws Exception {
        FencingRace race = raceAgainstFence(rowExisted, +1);
        assertNewerHolderWrote(race.five, race.blockerToken);
        assertThat(quantityOf(race.id)).isEqualTo(10);
        assertThat(lockFenceOf(race.lock)).isEqualTo(race.blockerToken);
    }

    /** As above, with an older token in the uncommitted row: holder 5's commit waits, then goes through. */
    @ParameterizedTest(name = "row existed: {0}")
    @ValueSource(booleans = {true, false})
    void aCommitRacingAnOlderHoldersCommitGoesThrough(boolean rowExisted) throws Exception {
        FencingRace race = raceAgainstFence(rowExisted, -1);
        assertThat(race.five.committed()).as(race.five.toString()).isTrue();
        assertThat(quantityOf(race.id)).isEqualTo(9);
        assertThat(lockFenceOf(race.lock)).isEqualTo(race.lease5Token);
    }

    /** What a race of holder 5's commit against an uncommitted fence row of another transaction gave. */
    private record FencingRace(FencedLock lock, long id, long lease5Token, long blockerToken, Outcome five) {}

    /**
     * Holder 5 updates a row and commits while a JDBC transaction holds the lock's fence row set to
     * holder 5's token plus {@code direction}, uncommitted; the JDBC transaction commits once holder
     * 5 is committing.
     */
    private FencingRace raceAgainstFence(boolean rowExisted, int direction) throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        long blockerToken = lease5.token() + direction;
        if (rowExisted) {
            db.execute("INSERT INTO fencedlock_fence (lock_name, token) VALUES (?, 0)", lock.name());
        }
        try (Connection blocker = db.connection()) {
            blocker.setAutoCommit(false);
            String sql = rowExisted
                    ? "UPDATE fencedlock_fence SET token = ? WHERE lock_name = ?"
                    : "INSERT INTO fencedlock_fence (token, lock_name) VALUES (?, ?)";
            try (PreparedStatement statement = blocker.prepareStatement(sql)) {
                statement.setLong(1, blockerToken);
                statement.setString(2, lock.name());
                assertThat(statement.executeUpdate()).isEqualTo(1);
            }
            CountDownLatch committing5 = new CountDownLatch(1);
            Future<Outcome> holder5 = executor.submit(() -> {
                try (Holder h5 = new Holder(lease5)) {
                    h5.em.find(Item.class, id).take(1);
                    h5.em.flush();
                    committing5.countDown();
                    return commitOf(h5);
                }
            });
            await(committing5, "holder 5 committing");
            blocker.commit();
            return new FencingRace(lock, id, lease5.token(), blockerToken, holder5.get(30, SECONDS));
        }
    }

    /**
     * Lock names are compared exactly: names that differ only in case or in a trailing space are
     * different locks, whose tokens cannot be compared, and each has its own fence row. (MariaDB's
     * default collations would make them one row, and refuse the oldest lease's commit here.)
     */
    @Test
    void lockNamesThatDifferOnlyInCaseOrATrailingSpaceHaveTheirOwnFenceRows() throws Exception {
        String base = "fencing-jpa/" + kind() + "/" + UUID.randomUUID() + "/";
        FencedLock upper = locks.lock(base + "A");
        FencedLock spaced = locks.lock(base + "A ");
        FencedLock lower = locks.lock(base + "a");
        Lease upperLease = upper.acquire(WAIT, LONG_LEASE);
        Lease spacedLease = spaced.acquire(WAIT, LONG_LEASE);
        Lease lowerLease = lower.acquire(WAIT, LONG_LEASE);
        for (Lease lease : new Lease[] {lowerLease, spacedLease, upperLease}) {
            long id = newItem(10);
            try (Holder holder = new Holder(lease)) {
                holder.em.find(Item.class, id).take(1);
                Outcome outcome = commitOf(holder);
                assertThat(outcome.committed())
                        .as(lease.lockName() + ": " + outcome)
                        .isTrue();
            }
        }
        assertThat(lockFenceOf(upper)).isEqualTo(upperLease.token());
        assertThat(lockFenceOf(spaced)).isEqualTo(spacedLease.token());
        assertThat(lockFenceOf(lower)).isEqualTo(lowerLease.token());
    }

    /**
     * Under REPEATABLE READ, PostgreSQL fails the stale transaction's UPDATE of a fence row that a
     * newer holder committed after the snapshot with a serialization failure, and does not see one
     * that was created after it; H2 and MariaDB update the latest row. Either way the stale commit
     * is refused as such.
     */
    @ParameterizedTest(name = "row existed before the snapshot: {0}")
    @ValueSource(booleans = {true, false})
    void underRepeatableReadAStaleCommitIsRefused(boolean rowExisted) throws Exception {
        long a = newItem(10);
        long b = newItem(10);
        FencedLock lock = newLock();
        if (rowExisted) {
            take(lock, a, 1);
        }
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        long token6;
        Outcome five;
        try (Holder holder5 = new Holder(lease5, Connection.TRANSACTION_REPEATABLE_READ)) {
            Item b5 = holder5.em.find(Item.class, b);
            token6 = takeOver(lock, a, 1);
            b5.take(1);
            holder5.em.flush();
            five = commitOf(holder5);
        }
        assertNewerHolderWrote(five, token6);
        assertThat(quantityOf(b)).isEqualTo(10);
        assertThat(lockFenceOf(lock)).isEqualTo(token6);
    }

    /**
     * Under REPEATABLE READ on PostgreSQL, a fence row that an older holder created after the
     * transaction's snapshot cannot be updated by it: the commit fails with a plain (retryable)
     * {@link OptimisticLockException}, and a retry goes through. H2 and MariaDB update the latest
     * row.
     */
    @Test
    void underRepeatableReadAFenceRowCreatedAfterTheSnapshotByAnOlderHolderAsksForARetry() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        Outcome first;
        try (Holder holder5 = new Holder(lease5, Connection.TRANSACTION_REPEATABLE_READ)) {
            holder5.em.find(Item.class, id).take(1);
            db.execute(
                    "INSERT INTO fencedlock_fence (lock_name, token) VALUES (?, ?)", lock.name(), lease5.token() - 1);
            first = commitOf(holder5);
        }
        if (kind() != TestDatabase.Kind.POSTGRESQL) {
            assertThat(first.committed()).as(first.toString()).isTrue();
        } else {
            assertThat(first.committed()).as(first.toString()).isFalse();
            assertThat(StaleFencingTokenException.findIn(first.failure())).isEmpty();
            assertThat(causes(first.failure()))
                    .anyMatch(t -> t.getClass() == OptimisticLockException.class
                            && t.getMessage().contains("created after the transaction's snapshot"));
            assertThat(quantityOf(id)).isEqualTo(10);
            long retried = take(lock, id, 1);
            assertThat(lockFenceOf(lock)).isEqualTo(retried);
        }
        assertThat(quantityOf(id)).isEqualTo(9);
    }

    /** Fenced bulk statements advance the lock's fence row and are refused by it like entity writes. */
    @Test
    void fencedBulkStatementsAreFencedByTheLockFence() throws Exception {
        long a = newItem(10);
        long b = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        LocalLockTable.SHARED.forceRelease(lock.name());
        long token6 = inOtherThread(() -> Fencing.inTransaction(lock, WAIT, emf, em -> {
            Fencing.fencedUpdate(
                    em,
                    Item.class,
                    (cb, root) -> cb.equal(root.get("id"), a),
                    (cb, update, root) -> update.set(root.<Integer>get("quantity"), 0));
            return Fencing.currentLease().orElseThrow().token();
        }));
        assertThat(lockFenceOf(lock)).isEqualTo(token6);

        Outcome five;
        try (Holder holder5 = new Holder(lease5)) {
            int deleted = Fencing.fencedDelete(holder5.em, Item.class, (cb, root) -> cb.equal(root.get("id"), b));
            assertThat(deleted).isEqualTo(1);
            five = commitOf(holder5);
        }
        assertNewerHolderWrote(five, token6);
        assertThat(quantityOf(a)).isZero();
        assertThat(quantityOf(b)).isEqualTo(10);
    }

    private Long lockFenceOf(FencedLock lock) {
        return db.queryLong("SELECT token FROM fencedlock_fence WHERE lock_name = ?", lock.name());
    }
}
