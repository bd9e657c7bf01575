package dev.fencedlock.benchmarks.jpa.fenced;

import dev.fencedlock.jpa.FencingListener;
import dev.fencedlock.jpa.FencingToken;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The fenced row: same shape as the versioned one, with a fence column instead of a version. */
@Entity
@Table(name = "bench_fenced_item")
@EntityListeners(FencingListener.class)
public class FencedItem {
    @Id
    private long id;

    private long quantity;

    @FencingToken
    private long fence;

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
