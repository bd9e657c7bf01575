package dev.fencedlock.faults.db;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** One row of the commit log: written in the transaction of the increment it records. */
@Entity
@Table(name = "fault_counter_log")
public class CounterLogEntry {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(name = "counter_name")
    private String counterName;

    private String attempt;

    private long token;

    @Column(name = "counter_value")
    private long value;

    protected CounterLogEntry() {}

    CounterLogEntry(String counterName, String attempt, long token, long value) {
        this.counterName = counterName;
        this.attempt = attempt;
        this.token = token;
        this.value = value;
    }
}
