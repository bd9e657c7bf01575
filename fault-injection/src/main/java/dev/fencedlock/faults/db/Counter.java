package dev.fencedlock.faults.db;

import dev.fencedlock.jpa.FencingListener;
import dev.fencedlock.jpa.FencingToken;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** A fenced counter row: every UPDATE carries the fence condition of {@code fencing-jpa}. */
@Entity
@Table(name = "fault_counter")
@EntityListeners(FencingListener.class)
public class Counter {
    @Id
    private String name;

    @Column(name = "counter_value")
    private long value;

    @Version
    private long version;

    @FencingToken
    private long fence;

    protected Counter() {}

    public String name() {
        return name;
    }

    public long value() {
        return value;
    }

    void value(long value) {
        this.value = value;
    }

    public long fence() {
        return fence;
    }
}
