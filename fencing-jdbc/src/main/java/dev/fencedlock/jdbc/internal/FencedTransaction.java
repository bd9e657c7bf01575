package dev.fencedlock.jdbc.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.Lease;
import dev.fencedlock.LockException;
import dev.fencedlock.LockNames;
import dev.fencedlock.jdbc.FenceRowBusyException;
import dev.fencedlock.jdbc.FenceTable;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * One fenced transaction on one connection: the steps of the fence, which every adapter ({@code
 * JdbcFencing}, fencing-jpa's transaction observer, the Spring starter's transaction listener)
 * runs through this object in one order:
 *
 * <ol>
 *   <li><b>Begin</b> ({@link #begin}, {@link #beginDeferred}, {@link #beginArmed}), on a
 *       transaction just begun (autocommit off, nothing run): the lease must be valid, else {@link
 *       FenceRefusedException} ({@link Reason#LEASE_NOT_VALID}) and nothing was run. Then the guard
 *       ({@link FenceGuard#enter}): the lock's fence row is raised to the token, or the transaction
 *       is refused ({@link Reason#NEWER_TOKEN_REGISTERED}); from here on the lock's transactions run
 *       one at a time, in token order. The wait for the row and (PostgreSQL, MariaDB) how long the
 *       transaction may sit idle are bounded by the lease's remaining time. Where the database can
 *       gate a statement on the guard (PostgreSQL through pgjdbc, MariaDB through Connector/J with
 *       {@code allowMultiQueries=true}) the guard may instead travel in one round trip with the
 *       transaction's first statement ({@link DeferredGuard}).
 *   <li>The work.
 *   <li><b>Before commit</b> ({@link #beforeCommit}): a deferred guard that no statement carried
 *       runs alone, so that the token is registered or refused as always; then the lease must still
 *       be valid, else {@link FenceRefusedException} ({@link Reason#LEASE_NOT_VALID}).
 *   <li>Commit, or rollback on any failure: the caller's, or the commit here ({@link #commit}),
 *       which on MariaDB puts the session back in the same round trip. After a failure and its
 *       rollback, {@link #explain} says which refusal or busy fence row the failure hides.
 *   <li><b>After completion</b> ({@link #afterCompletion}), before the connection goes back to a
 *       pool: what the guard set on the session and the database cannot scope to the transaction
 *       (MariaDB/MySQL: the mark protected tables' triggers read, MariaDB's idle bound) is put back.
 * </ol>
 *
 * <p>A transaction fenced by a token that no lease of this process holds (a receiver that takes the
 * token from a request) is made with {@link #of(FenceTable, Connection, String, long, Duration)}:
 * the same steps, without the lease checks, bounded by the bound it is given.
 *
 * <p>For fencedlock's adapters only (fencing-jpa, the Spring starter); not part of the API. Not
 * thread-safe: one per transaction, used by the thread that runs it.
 */
public final class FencedTransaction {
    /**
     * What a fenced transaction may sit idle beyond its bound before the server ends it (PostgreSQL,
     * MariaDB): room for the lease check before the commit.
     */
    public static final Duration IDLE_GRACE = GuardStatements.IDLE_GRACE;

    private static final DeferredGuard.Failures AS_THEY_ARE = (failure, pipelined) -> null;

    private final FenceGuard guard;
    private final FenceTable table;
    private final Connection connection;
    private final GuardableConnection guardable;
    private final Lease lease;
    private final String lockName;
    private final long token;
    private final Duration fixedBound;
    private DeferredGuard deferred;
    /** Whether the {@link #guardable} connection's commit is this transaction's ({@link #beginArmed}). */
    private boolean commitsThrough;
    /** Whether the guard may have changed the session: {@link #afterCompletion} must put it back. */
    private boolean sessionChanged;

    private FencedTransaction(
            FenceTable table, Connection connection, Lease lease, String lockName, long token, Duration bound) {
        if (table == null || connection == null) {
            throw new IllegalArgumentException(
                    "table and connection must not be null, got table " + table + " and connection " + connection);
        }
        this.guard = FenceGuard.of(table);
        this.table = table;
        this.guardable = GuardableConnection.of(connection);
        this.connection = GuardableConnection.unwrapped(connection);
        this.lease = lease;
        this.lockName = lockName;
        this.token = token;
        this.fixedBound = bound;
    }

    /**
     * The fenced transaction of {@code lease} on {@code connection}, bounded by the lease's remaining
     * time. Nothing is run until it begins.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static FencedTransaction of(FenceTable table, Connection connection, Lease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        return new FencedTransaction(table, connection, lease, lease.lockName(), lease.token(), null);
    }

    /**
     * The fenced transaction of a token that no lease of this process holds (a receiver takes it
     * from a request): the guard enters with {@code token} for {@code lockName}, waits for the row
     * and may sit idle at most {@code bound} (null: as long as the database lets it). No lease is
     * checked at begin or at commit.
     *
     * @throws IllegalArgumentException if {@code table} or {@code connection} is null, {@code
     *     lockName} is not a valid lock name, {@code token} is negative or {@code bound} negative
     */
    public static FencedTransaction of(
            FenceTable table, Connection connection, String lockName, long token, Duration bound) {
        LockNames.requireValid(lockName);
        if (token < 0) {
            throw new IllegalArgumentException("token must not be negative, got " + token);
        }
        if (bound != null && bound.isNegative()) {
            throw new IllegalArgumentException("bound must not be negative, got " + bound);
        }
        return new FencedTransaction(table, connection, null, lockName, token, bound);
    }

    public String lockName() {
        return lockName;
    }

    public long token() {
        return token;
    }

    /** The connection the guard runs on (a {@link #guardable} one unwrapped). */
    public Connection connection() {
        return connection;
    }

    /** Whether this transaction is fenced by {@code lease}, in {@code table}, on {@code connection}. */
    public boolean fences(Lease lease, FenceTable table, Connection connection) {
        return this.lease != null
                && this.lease == lease
                && this.table.equals(table)
                && this.connection == GuardableConnection.unwrapped(connection);
    }

    /** The longest wait for the row and idle time: the lease's remaining time, or the fixed bound. */
    Duration bound() {
        if (lease == null) {
            return fixedBound;
        }
        Duration remaining = lease.remaining();
        return remaining.isNegative() ? Duration.ZERO : remaining;
    }

    /**
     * Begins: the lease must be valid, then the guard runs now, as the transaction's first
     * statement, and bounds how long the transaction may sit idle.
     *
     * @throws FenceRefusedException if the lease is no longer valid ({@link Reason#LEASE_NOT_VALID};
     *     nothing was run), or a later holder has entered ({@link Reason#NEWER_TOKEN_REGISTERED}); the
     *     caller rolls back
     * @throws SQLException what the guard failed with (see {@link FenceGuard#enter}); the caller
     *     rolls back and may {@link #explain} it
     * @throws IllegalArgumentException if the connection is closed or in autocommit mode
     */
    public void begin() throws SQLException {
        requireValid("when the transaction began; nothing was run");
        enter();
    }

    /**
     * Begins as {@link #begin} does, except that where the database can gate a statement on the
     * guard the guard is deferred to the first statement the work executes on the returned
     * connection, and travels with it in one round trip ({@link DeferredGuardConnection}); failures
     * of the deferred guard are thrown as they are.
     *
     * @return the connection the work must use: this transaction's, or a wrapper of it
     */
    public Connection beginDeferred() throws SQLException {
        requireValid("when the transaction began; nothing was run");
        deferred = DeferredGuard.of(guard, connection, this, AS_THEY_ARE);
        if (deferred == null) {
            enter();
            return connection;
        }
        sessionChanged = true;
        return DeferredGuardConnection.wrap(connection, deferred);
    }

    /**
     * Begins as {@link #begin} does, except that on a {@link #guardable} connection, where the
     * database can gate a statement on the guard, the guard is armed on that connection to travel
     * with the transaction's first statement, until {@link #afterCompletion}; and that
     * connection's {@code commit()} is then {@link #commit this transaction's}, which on MariaDB
     * puts the session back in the commit's round trip.
     *
     * @param failures what a failure of the deferred guard is thrown as: called with the failure,
     *     on the transaction's connection, which the failure has left unusable until it is rolled
     *     back, and whether it is the pipeline's (the guard and the work's first statement, other
     *     than the guard's refusal, which has the guard run alone: either statement's failure, they
     *     are not told apart) rather than the guard's run alone; returns the exception to throw in
     *     its place, or null to throw the failure itself
     */
    public void beginArmed(BiFunction<Exception, Boolean, RuntimeException> failures) throws SQLException {
        requireValid("when the transaction began; nothing was run");
        if (guardable != null) {
            commitsThrough = true;
            guardable.commitThrough(this);
            deferred = DeferredGuard.of(guard, connection, this, failures::apply);
            if (deferred != null) {
                sessionChanged = true;
                guardable.arm(deferred);
                return;
            }
        }
        enter();
    }

    private void enter() throws SQLException {
        // before the guard: a guard that fails after its first statement may have set the mark
        sessionChanged = true;
        guard.enter(connection, lockName, token, bound());
    }

    /**
     * Runs a deferred guard alone now, unless a statement carried it; nothing if the guard ran at
     * begin. A refusal is then thrown here, before any statement of the caller's.
     *
     * @throws SQLException what the guard failed with, or what the failures given to {@link
     *     #beginArmed} put in its place
     */
    public void enterNow() throws SQLException {
        if (deferred != null) {
            deferred.enterAlone();
        }
    }

    /**
     * Before the commit: {@link #enterNow}, then the lease must still be valid.
     *
     * @throws FenceRefusedException ({@link Reason#LEASE_NOT_VALID}) if it is not; the caller rolls
     *     back
     */
    public void beforeCommit() throws SQLException {
        enterNow();
        requireValid("at commit; the transaction is rolled back");
    }

    /**
     * Commits, for an adapter that commits itself after {@link #beforeCommit} (and, on a {@link
     * #guardable} connection of {@link #beginArmed}, for its {@code commit()}): runs a deferred
     * guard that no statement carried ({@link #enterNow}), then gives the session
     * back as {@link #afterCompletion} does and commits in one round trip where the database and its
     * driver allow it (MariaDB through Connector/J: one compound statement, the session put back
     * before the commit, which no write follows), and, if {@code thenAutoCommit}, switches
     * autocommit on in the same round trip; elsewhere the connection's own {@code commit()}, the
     * session left for {@link #afterCompletion}. Either way {@link #afterCompletion} must still
     * follow, on every path: after this has done its work it runs nothing.
     *
     * @param thenAutoCommit whether the caller would switch autocommit on right after the commit;
     *     it may then find it on already
     * @throws SQLException what the commit failed with; its outcome may be in doubt, as any
     *     commit's. The caller rolls back, then {@link #afterCompletion} puts the session back
     */
    public void commit(boolean thenAutoCommit) throws SQLException {
        enterNow();
        if (sessionChanged && guard.commitRestoring(connection, thenAutoCommit)) {
            sessionChanged = false;
            return;
        }
        connection.commit();
    }

    /**
     * After the transaction failed with {@code failure} and the caller rolled it back: the refusal
     * a concurrency failure hides (the committed row now holds a newer token), or the {@link
     * FenceRowBusyException} a wait for the row that ran out is; empty for any other failure. Reads
     * the fence row on the connection; with autocommit off, that read's transaction is rolled back.
     */
    public Optional<LockException> explain(SQLException failure) {
        Optional<FenceRefusedException> refusal = guard.explain(connection, failure, lockName, token);
        if (refusal.isPresent()) {
            return Optional.of(refusal.get());
        }
        return guard.explainWait(connection, failure, lockName, token, null).map(busy -> busy);
    }

    /**
     * The refusal {@code failure} stands for if the database ended this transaction because its
     * holder sat idle in it past its bound (PostgreSQL's idle timeout, {@link #endedForIdling}; or,
     * with a lease no longer valid, a closed connection, SQLState class {@code 08}, which is how
     * MariaDB ends it): nothing of it was committed. Empty otherwise.
     */
    public Optional<FenceRefusedException> endedByDatabase(SQLException failure) {
        String state = failure.getSQLState();
        boolean closed = state != null && state.startsWith("08");
        boolean leaseRanOut = lease != null && !lease.isValid();
        if (!(leaseRanOut && (endedForIdling(failure) || closed))) {
            return Optional.empty();
        }
        return Optional.of(new FenceRefusedException(
                Reason.ENDED_BY_DATABASE,
                lockName,
                token,
                null,
                "nothing of it was committed (SQLState " + state + ": " + failure.getMessage() + ")",
                failure));
    }

    /**
     * After the transaction committed or rolled back, before its connection goes back to a pool:
     * disarms a deferred guard and gives the session back what the guard set for the transaction's
     * sake and the database cannot scope to it ({@link FenceGuard#afterCompletion}). Idempotent;
     * nothing when the guard never ran.
     *
     * @throws SQLException if the database fails the statement that puts the session back
     */
    public void afterCompletion() throws SQLException {
        disarm();
        if (sessionChanged) {
            sessionChanged = false;
            guard.afterCompletion(connection);
        }
    }

    /**
     * After the transaction ended with its connection already given to other work (a pool may hand
     * it to another thread): disarms, and leaves the connection alone.
     */
    public void abandon() {
        disarm();
        sessionChanged = false;
    }

    private void disarm() {
        if (guardable != null && (deferred != null || commitsThrough)) {
            commitsThrough = false;
            guardable.disarm();
        }
    }

    private void requireValid(String when) {
        if (lease != null && !lease.isValid()) {
            throw new FenceRefusedException(Reason.LEASE_NOT_VALID, lockName, token, null, when, null);
        }
    }

    /**
     * {@code connection}, made able to carry the guard of its next transaction with that
     * transaction's first statement ({@link #beginArmed}); unarmed, every call goes straight to it.
     * For a connection held across transactions (fencing-jpa's connection provider).
     */
    public static Connection guardable(Connection connection) {
        return GuardableConnection.wrap(connection);
    }

    /** What {@link #guardable} was given for {@code connection}, or {@code connection} itself. */
    public static Connection unguarded(Connection connection) {
        return GuardableConnection.unwrapped(connection);
    }

    /** Whether a guard can travel with the first statement on a connection {@code meta} describes. */
    public static boolean canPipeline(DatabaseMetaData meta) throws SQLException {
        return DeferredGuard.canPipeline(meta);
    }

    /**
     * Whether a connection {@code meta} describes gains from being {@link #guardable}: its guard
     * can travel with the first statement ({@link #canPipeline}), or its commit can give the
     * session back in the same round trip (MariaDB through Connector/J).
     */
    public static boolean isGuardable(DatabaseMetaData meta) throws SQLException {
        return DeferredGuard.canPipeline(meta) || DeferredGuard.canCommitRestoring(meta);
    }

    /** Whether {@code failure} is a concurrency failure (serialization, deadlock, lock timeout). */
    public static boolean isConcurrencyFailure(Throwable failure) {
        return ConcurrencyFailures.isConcurrencyFailure(failure);
    }

    /** Whether {@code failure} is a lock timeout. */
    public static boolean isLockTimeout(Throwable failure) {
        return ConcurrencyFailures.isLockTimeout(failure);
    }

    /**
     * Whether {@code failure} says the database ended a fenced transaction because it sat idle past
     * its guard's bound plus {@link #IDLE_GRACE} (PostgreSQL, SQLState {@code 25P03}); false for
     * null and every other failure.
     */
    public static boolean endedForIdling(Throwable failure) {
        return FenceGuard.endedForIdling(failure);
    }
}
