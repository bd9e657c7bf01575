package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An unfenced entity that a fenced {@link Item} refers to through a collection table. */
@Entity
@Table(name = "label")
public class Label {
    @Id
    private long id;

    private String name;

    protected Label() {}

    public Label(long id, String name) {
        this.id = id;
        this.name = name;
    }
}
