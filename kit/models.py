"""The files of the database storage (kit.file_store.DatabaseStorage): a file is a row
naming it and its bytes in fixed-size chunks, so that no host needs a disk another can
read and no process reads a whole file into memory to send it."""

from django.db import models


class StoredFile(models.Model):
    name = models.CharField(max_length=500, unique=True)
    size = models.BigIntegerField(default=0)
    chunk_size = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        default_permissions = ()

    def __str__(self):
        return f"{self.name} ({self.size} bytes)"


class FileChunk(models.Model):
    """Bytes [index * chunk_size, (index + 1) * chunk_size) of `file`; every chunk but the last is full."""

    file = models.ForeignKey(StoredFile, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        default_permissions = ()
        constraints = [models.UniqueConstraint(fields=["file", "index"], name="kit_one_chunk_per_place")]
