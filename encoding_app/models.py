# Encoding of answers (the encoding issue): models come with the reviewers' queue.
