package dev.fencedlock.benchmarks.jpa.fenced;

import dev.fencedlock.jpa.FencingListener;
import dev.fencedlock.jpa.FencingToken;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** The fenced row: the versioned one's shape plus the fence column that fencing-jpa stamps. */
@Entity
@Table(name = "bench_fenced_item")
@EntityListeners(FencingListener.class)
public class FencedItem {
    @Id
    private long id;

    private long quantity;

    @FencingToken
    private long fence;

    // fencing-jpa requires a @Version beside the fence column (docs/fencing-jpa.md)
    @Version
    private long version;

    protected FencedItem() {}

    public FencedItem(long id) {
        this.id = id;
    }

    public void increment() {
        quantity++;
    }

    public long quantity() {
        return quantity;
    }

    public long fence() {
        return fence;
    }
}
