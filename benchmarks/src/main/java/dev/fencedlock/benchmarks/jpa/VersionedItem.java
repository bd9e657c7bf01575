package dev.fencedlock.benchmarks.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** The anchor's row: optimistic locking with a plain {@code @Version} column. */
@Entity
@Table(name = "bench_versioned_item")
public class VersionedItem {
    @Id
    private long id;

    private long quantity;

    @Version
    private long version;

    protected VersionedItem() {}

    public VersionedItem(long id) {
        this.id = id;
    }

    public void increment() {
        quantity++;
    }

    public long quantity() {
        return quantity;
    }
}
