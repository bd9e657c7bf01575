package dev.fencedlock.spring.app;

import dev.fencedlock.spring.CurrentLease;
import dev.fencedlock.spring.Locked;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Holders that stall inside their fenced transaction, on a fixed lease of one second, until the
 * database server has ended the transaction (PostgreSQL's and MariaDB's idle bound, which the guard
 * sets to the lease's remaining time plus a grace), then carry on: before the stall or after it
 * they write through a repository or {@code JdbcTemplate}.
 */
@Service
public class StalledHolders {
    private final Items items;
    private final Orders orders;
    private final JdbcTemplate jdbc;
    private final DataSource dataSource;

    public StalledHolders(Items items, Orders orders, JdbcTemplate jdbc, DataSource dataSource) {
        this.items = items;
        this.orders = orders;
        this.jdbc = jdbc;
        this.dataSource = dataSource;
    }

    /** Takes one unit (flushed at commit), then stalls. */
    @Locked(value = "'inventory:' + #sku", leaseTime = "1s")
    @Transactional
    public void orderThenStall(String sku) throws InterruptedException {
        items.findById(sku).orElseThrow().takeOne();
        orders.save(new Order(sku, "stalled", CurrentLease.get().orElseThrow().token()));
        ServerSessions.awaitEnded(jdbc, dataSource);
    }

    /** Stalls, then takes one unit and flushes it at once. */
    @Locked(value = "'inventory:' + #sku", leaseTime = "1s")
    @Transactional
    public void stallThenOrder(String sku) throws InterruptedException {
        ServerSessions.awaitEnded(jdbc, dataSource);
        items.findById(sku).orElseThrow().takeOne();
        orders.saveAndFlush(
                new Order(sku, "stalled", CurrentLease.get().orElseThrow().token()));
    }

    /** Writes the counter with {@code JdbcTemplate}, then stalls. */
    @Locked(value = "'counter:' + #name", leaseTime = "1s")
    @Transactional
    public void countThenStall(String name) throws InterruptedException {
        jdbc.update("update counters set amount = amount + 1 where name = ?", name);
        ServerSessions.awaitEnded(jdbc, dataSource);
    }

    /** Stalls, then writes the counter with {@code JdbcTemplate}. */
    @Locked(value = "'counter:' + #name", leaseTime = "1s")
    @Transactional
    public void stallThenCount(String name) throws InterruptedException {
        ServerSessions.awaitEnded(jdbc, dataSource);
        jdbc.update("update counters set amount = amount + 1 where name = ?", name);
    }
}
