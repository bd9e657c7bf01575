package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/**
 * An unfenced entity with a plain {@code @Version}: the baseline a fenced transaction's cost is
 * measured against. Its table is made by the tests that use it.
 */
@Entity
@Table(name = "counter")
public class Counter {
    @Id
    private long id;

    private long value;

    @Version
    private long version;

    protected Counter() {}

    public Counter(long id) {
        this.id = id;
    }

    public void increment() {
        value++;
    }
}
