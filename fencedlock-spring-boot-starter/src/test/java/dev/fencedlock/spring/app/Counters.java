package dev.fencedlock.spring.app;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.CurrentLease;
import dev.fencedlock.spring.Locked;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Plain SQL through {@link JdbcTemplate}: read, then write what was read plus one. */
@Service
public class Counters {
    private final JdbcTemplate jdbc;

    public Counters(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public long read(String name) {
        Long value = jdbc.queryForObject("select amount from counters where name = ?", Long.class, name);
        return value == null ? 0 : value;
    }

    public void write(String name, long value) {
        int updated = jdbc.update("update counters set amount = ? where name = ?", value, name);
        if (updated == 0) {
            jdbc.update("insert into counters (name, amount) values (?, ?)", name, value);
        }
    }

    public long readOrZero(String name) {
        return jdbc.queryForList("select amount from counters where name = ?", Long.class, name).stream()
                .findFirst()
                .orElse(0L);
    }

    /**
     * Adds one under the lock {@code name} on an auto-renewing lease, waiting up to two minutes for
     * the lock: {@code holding} runs with the lease in the transaction, before the read; then the
     * value read plus one is written and returned.
     */
    @Locked(value = "'counter:' + #name", waitTime = "2m")
    @Transactional
    public long increment(String name, Consumer<Lease> holding) {
        holding.accept(CurrentLease.get().orElseThrow());
        long next = readOrZero(name) + 1;
        write(name, next);
        return next;
    }

    /** Adds one on a fixed lease, stalling after the write until the lease has run out. */
    @Locked(value = "'counter:' + #name", leaseTime = "300ms")
    @Transactional
    public void incrementStallingPastLease(String name) throws InterruptedException {
        write(name, readOrZero(name) + 1);
        Inventory.awaitExpiry(CurrentLease.get().orElseThrow());
    }

    /**
     * Writes {@code value} with no transaction of its own, on a fixed lease, after that lease has
     * run out and {@code newerWrote} has opened.
     */
    @Locked(value = "'counter:' + #name", leaseTime = "300ms")
    public void writeWithoutTransactionAfterLeaseRanOut(String name, long value, CountDownLatch newerWrote)
            throws InterruptedException {
        Inventory.awaitExpiry(CurrentLease.get().orElseThrow());
        newerWrote.await();
        jdbc.update("update counters set amount = ? where name = ?", value, name);
    }

    /** Runs {@code work} under the lock {@code name}, with no transaction and no database access. */
    @Locked("'counter:' + #name")
    public <T> T withoutDatabase(String name, Supplier<T> work) {
        return work.get();
    }

    @Transactional
    public void reset(String name) {
        jdbc.update("delete from counters where name = ?", name);
    }
}
