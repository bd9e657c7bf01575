package dev.fencedlock.faults.db;

import dev.fencedlock.Lease;
import dev.fencedlock.faults.history.FencedWrite;
import dev.fencedlock.faults.history.WriteOutcome;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.FencingScope;
import dev.fencedlock.jpa.StaleFencingTokenException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * A read-modify-write increment of a fenced counter, split at the point where a fault is injected:
 * {@link #begin} opens a transaction with the lease bound and reads the counter; {@link #commit}
 * writes the value read plus one, with a commit-log row, and commits. Between the two the client
 * may be paused, partitioned or overtaken.
 *
 * <p>Confined to one thread (the binding of the lease is per thread); close it on that thread.
 */
public final class FencedIncrement implements AutoCloseable {
    /**
     * The detail of a write refused because the database ended its transaction for sitting idle
     * past its lease ({@link JdbcFencing#endedForIdling}).
     */
    public static final String ENDED_FOR_IDLING = "ENDED_FOR_IDLING";

    private final EntityManager em;
    private final FencingScope scope;
    private final Lease lease;
    private final String counterName;
    private Counter counter;
    private long read;

    private FencedIncrement(EntityManager em, FencingScope scope, Lease lease, String counterName) {
        this.em = em;
        this.scope = scope;
        this.lease = lease;
        this.counterName = counterName;
    }

    /**
     * Begins the transaction, binds {@code lease} and reads the counter.
     *
     * @throws IllegalStateException if the counter does not exist
     */
    public static FencedIncrement begin(EntityManagerFactory factory, Lease lease, String counterName) {
        EntityManager em = factory.createEntityManager();
        FencedIncrement increment = new FencedIncrement(em, Fencing.bind(lease), lease, counterName);
        try {
            em.getTransaction().begin();
            Counter counter = em.find(Counter.class, counterName);
            if (counter == null) {
                throw new IllegalStateException("no counter '" + counterName + "'");
            }
            increment.counter = counter;
            increment.read = counter.value();
            return increment;
        } catch (RuntimeException e) {
            increment.close();
            throw e;
        }
    }

    /** The value the transaction read. */
    public long readValue() {
        return read;
    }

    /**
     * Writes {@code readValue() + 1} and commits. A refusal by the fence is {@link
     * WriteOutcome#REFUSED_STALE} with the refusal's reason as detail, as is a transaction the
     * database ended for sitting idle past its lease ({@link #ENDED_FOR_IDLING}); any other failure of the
     * commit is {@link WriteOutcome#UNKNOWN}: the client cannot tell whether it took effect.
     *
     * @param attempt the id the commit log records, unique within the run
     * @param atNanos clock to read when the outcome is known
     */
    public FencedWrite commit(String client, String attempt, LongSupplier atNanos) {
        try {
            counter.value(read + 1);
            em.persist(new CounterLogEntry(counterName, attempt, lease.token(), read + 1));
            em.getTransaction().commit();
            return new FencedWrite(
                    counterName, client, attempt, lease.token(), WriteOutcome.OK, "", atNanos.getAsLong());
        } catch (RuntimeException e) {
            long at = atNanos.getAsLong();
            rollBackQuietly();
            return failed(e, counterName, client, attempt, lease.token(), at);
        }
    }

    /**
     * A whole increment: {@link #begin}, then {@link #commit}. A refusal at {@code begin()} (the
     * lease check or the fence guard) is {@link WriteOutcome#REFUSED_STALE} like one at the commit,
     * and any other failure of the begin {@link WriteOutcome#UNKNOWN}; nothing was written then.
     *
     * @param lease the lease to bind, whose token the write carries
     */
    public static FencedWrite run(
            EntityManagerFactory factory,
            Lease lease,
            String counterName,
            String client,
            String attempt,
            LongSupplier atNanos) {
        FencedIncrement increment;
        try {
            increment = begin(factory, lease, counterName);
        } catch (RuntimeException e) {
            return failed(e, counterName, client, attempt, lease.token(), atNanos.getAsLong());
        }
        try (increment) {
            return increment.commit(client, attempt, atNanos);
        }
    }

    private static FencedWrite failed(
            RuntimeException e, String counterName, String client, String attempt, long token, long at) {
        Optional<StaleFencingTokenException> stale = StaleFencingTokenException.findIn(e);
        if (stale.isPresent()) {
            return new FencedWrite(
                    counterName,
                    client,
                    attempt,
                    token,
                    WriteOutcome.REFUSED_STALE,
                    stale.get().reason().name(),
                    at);
        }
        if (JdbcFencing.endedForIdling(e)) {
            return new FencedWrite(
                    counterName, client, attempt, token, WriteOutcome.REFUSED_STALE, ENDED_FOR_IDLING, at);
        }
        return new FencedWrite(
                counterName,
                client,
                attempt,
                token,
                WriteOutcome.UNKNOWN,
                e.getClass().getSimpleName() + ": " + e.getMessage(),
                at);
    }

    private void rollBackQuietly() {
        try {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
        } catch (RuntimeException ignored) {
            // the connection is gone or the transaction already ended: nothing was committed by us
        }
    }

    /** Rolls back what was not committed, unbinds the lease, closes the entity manager. */
    @Override
    public void close() {
        try {
            rollBackQuietly();
        } finally {
            try {
                scope.close();
            } finally {
                em.close();
            }
        }
    }
}
