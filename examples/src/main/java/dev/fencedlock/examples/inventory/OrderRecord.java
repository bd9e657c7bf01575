package dev.fencedlock.examples.inventory;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One unit sold; written in the same transaction as the stock decrement. */
@Entity
@Table(name = "orders")
public class OrderRecord {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, length = 64)
    private String sku;

    @Column(nullable = false, length = 64)
    private String worker;

    @Column(nullable = false)
    private long token;

    @Column(name = "placed_at", nullable = false)
    private Instant placedAt;

    protected OrderRecord() {}

    OrderRecord(String sku, String worker, long token, Instant placedAt) {
        this.sku = sku;
        this.worker = worker;
        this.token = token;
        this.placedAt = placedAt;
    }
}
