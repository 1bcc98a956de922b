"""CFPD_STORAGE_URL read into STORAGES["default"] (cfpd_site.env.storage_backend): the
database when unset, an S3-compatible bucket for s3:// and s3+http:// addresses, and a
clear error naming the expected shape for anything else."""

import pytest

from cfpd_site.env import ConfigError, storage_backend


@pytest.mark.parametrize("url", [None, "", "  ", "db"])
def test_nothing_set_is_the_database(url):
    assert storage_backend(url) == {"BACKEND": "kit.file_store.DatabaseStorage"}


def test_an_s3_address_names_the_bucket_the_keys_and_the_endpoint():
    options = storage_backend("s3+http://cfpd%2Bkey:s%2Fcr%40t@127.0.0.1:8333/reports/site-a?region=eu-west-3")["OPTIONS"]
    assert options["access_key"] == "cfpd+key" and options["secret_key"] == "s/cr@t"  # percent-decoded
    assert options["endpoint_url"] == "http://127.0.0.1:8333" and options["bucket_name"] == "reports"
    assert options["location"] == "site-a" and options["region_name"] == "eu-west-3"
    backend = storage_backend("s3://k:s@objects.example.org/b")
    assert backend["BACKEND"] == "kit.file_store.ObjectStorage"
    assert backend["OPTIONS"]["endpoint_url"] == "https://objects.example.org"
    assert backend["OPTIONS"]["location"] == "" and backend["OPTIONS"]["region_name"] == "us-east-1"


@pytest.mark.parametrize("url, named", [
    ("file:///var/cfpd", "scheme 'file'"),
    ("s3://host/bucket", "needs a key, a secret, a host and a bucket"),
    ("s3://k:s@host", "needs a key, a secret, a host and a bucket"),
    ("s3://k:s@host:port/b", "port that is not a number"),
    ("s3://k:s@host/b?acl=public", "options it does not know: acl"),
])
def test_a_bad_address_says_what_is_wrong_and_the_shape_expected(url, named):
    with pytest.raises(ConfigError, match=named):
        storage_backend(url)
